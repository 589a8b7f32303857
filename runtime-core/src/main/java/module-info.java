/**
 * GraphRT's core: the capture lifecycle, memory pools, metadata cache, recording and backend discovery.
 * Only the entry points are exported; Guice reads the internals reflectively.
 */
module dev.graphrt.core {
    requires transitive dev.graphrt.api;
    requires com.google.guice;
    // Guice is an automatic module and cannot declare that it needs Guava: resolve Guava for it.
    requires com.google.common;
    requires jakarta.inject;
    requires jdk.jfr;
    requires org.slf4j;
    requires static org.jspecify; // nullness annotations, read by NullAway at build time

    exports dev.graphrt.core;

    opens dev.graphrt.core to
            com.google.guice;
    opens dev.graphrt.core.discovery to
            com.google.guice;

    uses dev.graphrt.spi.BackendProvider;
}
