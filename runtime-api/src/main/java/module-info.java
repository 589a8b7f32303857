/**
 * GraphRT's user API ({@code dev.graphrt.api}) and the backend SPI ({@code dev.graphrt.spi}), nothing else:
 * the jar every user compiles against. Depends on nothing but SLF4J.
 */
module dev.graphrt.api {
    requires transitive org.slf4j;
    exports dev.graphrt.api;
    exports dev.graphrt.spi;
    uses dev.graphrt.spi.BackendProvider;
}
