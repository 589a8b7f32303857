package dev.graphrt.backend.hip;

import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.NativeBinder;
import java.lang.invoke.MethodHandle;

/**
 * The raw layer of the HIP bindings: one {@code static final} downcall handle per {@link Symbol}, bound by the
 * shared {@link NativeBinder}, named as {@code libamdhip64} exports it. Nobody calls these but
 * {@link HipRuntime}, the typed layer, which checks every result.
 *
 * <p>Why {@code static final} fields: the JIT treats them as constants and inlines the downcall. The class is
 * initialised on first use, which the backend makes only after {@link HipLibrary#failure()} was empty, so a
 * machine without HIP never fails in a class initialiser. The optional symbols ({@code hipGraphUpload},
 * {@code hipGraphDebugDotPrint}) are null where the library lacks them.
 */
final class HipHandles {
    private static final NativeBinder B = new NativeBinder(HipLibrary.lookup(), HipLibrary.origin());

    static final MethodHandle hipInit = B.bind(Symbol.hipInit);
    static final MethodHandle hipDriverGetVersion = B.bind(Symbol.hipDriverGetVersion);
    static final MethodHandle hipRuntimeGetVersion = B.bind(Symbol.hipRuntimeGetVersion);
    static final MethodHandle hipGetErrorName = B.bind(Symbol.hipGetErrorName);
    static final MethodHandle hipGetDeviceCount = B.bind(Symbol.hipGetDeviceCount);
    static final MethodHandle hipSetDevice = B.bind(Symbol.hipSetDevice);
    static final MethodHandle hipDeviceGetName = B.bind(Symbol.hipDeviceGetName);
    static final MethodHandle hipDeviceTotalMem = B.bind(Symbol.hipDeviceTotalMem);
    static final MethodHandle hipDeviceGetAttribute = B.bind(Symbol.hipDeviceGetAttribute);
    static final MethodHandle hipThreadExchangeStreamCaptureMode = B.bind(Symbol.hipThreadExchangeStreamCaptureMode);
    static final MethodHandle hipStreamCreateWithFlags = B.bind(Symbol.hipStreamCreateWithFlags);
    static final MethodHandle hipStreamDestroy = B.bind(Symbol.hipStreamDestroy);
    static final MethodHandle hipStreamSynchronize = B.bind(Symbol.hipStreamSynchronize);
    static final MethodHandle hipDeviceSynchronize = B.bind(Symbol.hipDeviceSynchronize);
    static final MethodHandle hipDeviceReset = B.bind(Symbol.hipDeviceReset);
    static final MethodHandle hipStreamQuery = B.bind(Symbol.hipStreamQuery);
    static final MethodHandle hipMalloc = B.bind(Symbol.hipMalloc);
    static final MethodHandle hipFree = B.bind(Symbol.hipFree);
    static final MethodHandle hipHostMalloc = B.bind(Symbol.hipHostMalloc);
    static final MethodHandle hipHostFree = B.bind(Symbol.hipHostFree);
    static final MethodHandle hipMemcpyHtoD = B.bind(Symbol.hipMemcpyHtoD);
    static final MethodHandle hipMemcpyHtoDAsync = B.bind(Symbol.hipMemcpyHtoDAsync);
    static final MethodHandle hipMemcpyDtoHAsync = B.bind(Symbol.hipMemcpyDtoHAsync);
    static final MethodHandle hipModuleLoadData = B.bind(Symbol.hipModuleLoadData);
    static final MethodHandle hipModuleGetFunction = B.bind(Symbol.hipModuleGetFunction);
    static final MethodHandle hipModuleUnload = B.bind(Symbol.hipModuleUnload);
    static final MethodHandle hipModuleLaunchKernel = B.bind(Symbol.hipModuleLaunchKernel);
    static final MethodHandle hipEventCreateWithFlags = B.bind(Symbol.hipEventCreateWithFlags);
    static final MethodHandle hipEventRecord = B.bind(Symbol.hipEventRecord);
    static final MethodHandle hipEventQuery = B.bind(Symbol.hipEventQuery);
    static final MethodHandle hipEventSynchronize = B.bind(Symbol.hipEventSynchronize);
    static final MethodHandle hipEventDestroy = B.bind(Symbol.hipEventDestroy);
    static final MethodHandle hipStreamBeginCapture = B.bind(Symbol.hipStreamBeginCapture);
    static final MethodHandle hipStreamEndCapture = B.bind(Symbol.hipStreamEndCapture);
    static final MethodHandle hipStreamIsCapturing = B.bind(Symbol.hipStreamIsCapturing);
    static final MethodHandle hipGraphGetNodes = B.bind(Symbol.hipGraphGetNodes);
    static final MethodHandle hipGraphNodeGetType = B.bind(Symbol.hipGraphNodeGetType);
    static final MethodHandle hipGraphInstantiateWithFlags = B.bind(Symbol.hipGraphInstantiateWithFlags);
    static final MethodHandle hipGraphUpload = B.bind(Symbol.hipGraphUpload);
    static final MethodHandle hipGraphLaunch = B.bind(Symbol.hipGraphLaunch);
    static final MethodHandle hipGraphExecDestroy = B.bind(Symbol.hipGraphExecDestroy);
    static final MethodHandle hipGraphDestroy = B.bind(Symbol.hipGraphDestroy);
    static final MethodHandle hipGraphDebugDotPrint = B.bind(Symbol.hipGraphDebugDotPrint);

    private HipHandles() {
    }
}
