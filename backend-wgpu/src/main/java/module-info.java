/**
 * GraphRT's WebGPU backend: the standard {@code webgpu.h} C API (Google Dawn, or a wgpu-native build of the
 * same header generation) through {@code java.lang.foreign}, WGSL kernels and a software graph that replays
 * a whole recording in one compute pass and one submission.
 */
module dev.graphrt.backend.wgpu {
    requires dev.graphrt.api;
    provides dev.graphrt.spi.BackendProvider with dev.graphrt.backend.wgpu.WgpuBackendProvider;
}
