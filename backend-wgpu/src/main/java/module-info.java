/**
 * GraphRT's WebGPU backend: the standard {@code webgpu.h} C API (Google Dawn, or a wgpu-native build of the
 * same header generation) through {@code java.lang.foreign}, WGSL kernels and a software graph, resolved once when
 * sealed, that a replay encodes and submits in pipelined chunks.
 */
module dev.graphrt.backend.wgpu {
    requires dev.graphrt.api;
    requires org.slf4j;

    provides dev.graphrt.spi.BackendProvider with
            dev.graphrt.backend.wgpu.WgpuBackendProvider;
}
