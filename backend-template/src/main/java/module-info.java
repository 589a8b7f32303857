/**
 * The template backend: the smallest honest GraphRT backend, and the worked example of docs/writing-a-backend.md.
 * It depends on the runtime API alone and exports nothing: the core finds it through {@code ServiceLoader}.
 */
module dev.graphrt.backend.template {
    requires dev.graphrt.api;

    provides dev.graphrt.spi.BackendProvider with
            dev.graphrt.backend.template.TemplateBackendProvider;
}
