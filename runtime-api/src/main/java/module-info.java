/**
 * GraphRT's user API ({@code dev.graphrt.api}) and the backend SPI ({@code dev.graphrt.spi}), nothing else:
 * the jar every user compiles against. Depends on nothing but the JDK: no file here logs, so each module that
 * does (the core, the driver layer, the backends) requires SLF4J itself.
 */
@SuppressWarnings("module") // the qualified export names dev.graphrt.core, which is built after this module
module dev.graphrt.api {
    requires static org.jspecify; // nullness annotations, read by NullAway at build time

    exports dev.graphrt.api;
    exports dev.graphrt.spi;

    uses dev.graphrt.spi.BackendProvider;
}
