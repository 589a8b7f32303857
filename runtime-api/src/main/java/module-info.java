/**
 * GraphRT's user API ({@code dev.graphrt.api}), the backend SPI ({@code dev.graphrt.spi}) and the small
 * helpers that keep a backend short ({@code dev.graphrt.spi.support}). Depends on nothing but SLF4J.
 */
module dev.graphrt.api {
    requires transitive org.slf4j;
    exports dev.graphrt.api;
    exports dev.graphrt.spi;
    exports dev.graphrt.spi.support;
    uses dev.graphrt.spi.BackendProvider;
}
