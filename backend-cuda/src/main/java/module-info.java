/**
 * GraphRT's CUDA backend: the CUDA driver API ({@code libcuda.so.1}) and NVRTC through the FFM API,
 * with hardware graphs (stream capture). Exports nothing; it is found through {@code ServiceLoader}.
 */
module dev.graphrt.backend.cuda {
    requires dev.graphrt.api;
    requires dev.graphrt.driver;
    requires org.slf4j;

    provides dev.graphrt.spi.BackendProvider with
            dev.graphrt.backend.cuda.CudaBackendProvider;
}
