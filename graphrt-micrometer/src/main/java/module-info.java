/**
 * Optional Micrometer metrics for GraphRT: a {@link io.micrometer.core.instrument.binder.MeterBinder} over what a
 * runtime and its graph caches report through the public API. Depends on the API only, so the core and the
 * backends carry no Micrometer dependency.
 */
module dev.graphrt.micrometer {
    requires transitive dev.graphrt.api;
    requires transitive micrometer.core;

    exports dev.graphrt.micrometer;
}
