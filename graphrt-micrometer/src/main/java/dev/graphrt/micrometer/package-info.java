/**
 * Micrometer metrics of a GraphRT runtime: {@link dev.graphrt.micrometer.GraphRTMetrics} binds its memory, pool
 * growth and graph caches to a {@code MeterRegistry}, through the runtime's observer, without a dependency of the
 * core on Micrometer.
 */
package dev.graphrt.micrometer;
