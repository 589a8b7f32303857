package dev.graphrt.driver;

import java.util.Objects;

/**
 * Which exported function of a backend's library plays each part of {@link GraphCalls}, for
 * {@link BoundGraphCalls}. All but {@code launch} must have the C signature CUDA and HIP share for them; an
 * optional {@code upload} or {@code debugDotPrint} the library lacks binds to nothing and is skipped. The hot
 * {@code launch} and the {@code execUpdate} (whose signature differs between CUDA 12 and HIP) are only named here,
 * for messages: the backend calls them itself. {@code execKernelNodeSetParams} takes
 * {@code (exec, node, const params*)} in both, with the backend's own params struct; {@code addChildGraphNode}
 * {@code (node*, graph, const deps*, size_t count, child)} in both; {@code captureInfo} and
 * {@code updateCaptureDependencies} differ (CUDA 12.3+ adds edge data) and are only named here.
 */
public record GraphSymbols(
        NativeSymbol beginCapture,
        NativeSymbol endCapture,
        NativeSymbol isCapturing,
        NativeSymbol getNodes,
        NativeSymbol nodeGetType,
        NativeSymbol instantiate,
        NativeSymbol upload,
        NativeSymbol debugDotPrint,
        NativeSymbol destroy,
        NativeSymbol launch,
        NativeSymbol execDestroy,
        NativeSymbol execUpdate,
        NativeSymbol execKernelNodeSetParams,
        NativeSymbol addChildGraphNode,
        NativeSymbol captureInfo,
        NativeSymbol updateCaptureDependencies) {
    public GraphSymbols {
        Objects.requireNonNull(beginCapture, "beginCapture");
        Objects.requireNonNull(endCapture, "endCapture");
        Objects.requireNonNull(isCapturing, "isCapturing");
        Objects.requireNonNull(getNodes, "getNodes");
        Objects.requireNonNull(nodeGetType, "nodeGetType");
        Objects.requireNonNull(instantiate, "instantiate");
        Objects.requireNonNull(upload, "upload");
        Objects.requireNonNull(debugDotPrint, "debugDotPrint");
        Objects.requireNonNull(destroy, "destroy");
        Objects.requireNonNull(launch, "launch");
        Objects.requireNonNull(execDestroy, "execDestroy");
        Objects.requireNonNull(execUpdate, "execUpdate");
        Objects.requireNonNull(execKernelNodeSetParams, "execKernelNodeSetParams");
        Objects.requireNonNull(addChildGraphNode, "addChildGraphNode");
        Objects.requireNonNull(captureInfo, "captureInfo");
        Objects.requireNonNull(updateCaptureDependencies, "updateCaptureDependencies");
    }
}
