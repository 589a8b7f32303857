package dev.graphrt.backend.wgpu;

import dev.graphrt.api.BlockShape;
import dev.graphrt.api.Dialect;
import dev.graphrt.spi.CompiledKernel;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A compiled WGSL kernel: its compute pipeline and the explicit bind group layout built from the bindings it
 * declares. Released when the backend closes.
 */
final class WgpuKernel implements CompiledKernel {
    private final WgpuDevice owner;
    private final String entryPoint;
    private final MemorySegment pipeline;
    private final MemorySegment bindGroupLayout;
    private final int[] bindings;
    private final Optional<BlockShape> workgroupSize;

    WgpuKernel(
            WgpuDevice owner,
            String entryPoint,
            MemorySegment pipeline,
            MemorySegment bindGroupLayout,
            int[] bindings,
            Optional<BlockShape> workgroupSize) {
        this.owner = owner;
        this.workgroupSize = workgroupSize;
        this.entryPoint = entryPoint;
        this.pipeline = pipeline;
        this.bindGroupLayout = bindGroupLayout;
        this.bindings = bindings;
    }

    /**
     * {@code kernel} as a kernel of {@code device}.
     *
     * @throws IllegalArgumentException if another backend (or another wgpu device) compiled it
     */
    static WgpuKernel of(CompiledKernel kernel, WgpuDevice device) {
        Objects.requireNonNull(kernel, "kernel");
        if (!(kernel instanceof WgpuKernel k) || k.owner != device) {
            throw new IllegalArgumentException("kernel: not compiled by this wgpu backend: " + kernel);
        }
        return k;
    }

    @Override
    public String entryPoint() {
        return entryPoint;
    }

    @Override
    public Dialect dialect() {
        return Dialect.WGSL;
    }

    /**
     * The bindings the WGSL declares, from which the bind group layout was built: buffer i at binding i, then the
     * info buffer (docs/kernels.md). The core refuses a launch that passes another count; without that, an extra
     * buffer would move the info buffer out of the layout and the shader would read the extra buffer as its info.
     */
    @Override
    public OptionalInt declaredParameters() {
        return OptionalInt.of(bindings.length);
    }

    /** The entry point's {@code @workgroup_size}: every launch must use it as its block (empty: not known). */
    @Override
    public Optional<BlockShape> requiredBlock() {
        return workgroupSize;
    }

    WgpuDevice owner() {
        return owner;
    }

    MemorySegment pipeline() {
        return pipeline;
    }

    MemorySegment bindGroupLayout() {
        return bindGroupLayout;
    }

    /** Declared binding numbers, ascending; do not modify. */
    int[] bindings() {
        return bindings;
    }

    void release() {
        Wgpu.computePipelineRelease(pipeline);
        Wgpu.bindGroupLayoutRelease(bindGroupLayout);
    }

    @Override
    public String toString() {
        return "WgpuKernel[" + entryPoint + ", " + bindings.length + " bindings]";
    }
}
