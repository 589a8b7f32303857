/** HIP backend (libamdhip64 through FFM). Not implemented yet: its provider reports so. */
module dev.graphrt.backend.hip {
    requires dev.graphrt.api;

    provides dev.graphrt.spi.BackendProvider with dev.graphrt.backend.hip.HipBackendProvider;
}
