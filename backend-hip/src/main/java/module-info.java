/**
 * GraphRT's HIP backend: the HIP runtime API ({@code libamdhip64}) and hiprtc through the FFM API, with hardware
 * graphs (stream capture); the cuda backend's shape, sharing its hardware-graph helpers through
 * {@code dev.graphrt.driver}. Exports nothing; it is found through {@code ServiceLoader}.
 */
module dev.graphrt.backend.hip {
    requires dev.graphrt.api;
    requires dev.graphrt.driver;
    requires org.slf4j;

    provides dev.graphrt.spi.BackendProvider with
            dev.graphrt.backend.hip.HipBackendProvider;
}
