/** The pure-Java reference backend: JAVA-dialect kernels over memory segments, software graphs, always available. */
module dev.graphrt.backend.cpu {
    requires dev.graphrt.api;
    requires jdk.management;

    provides dev.graphrt.spi.BackendProvider with
            dev.graphrt.backend.cpu.CpuBackendProvider;
}
