/**
 * The core's entry point: {@link dev.graphrt.core.GraphRT#open} finds a backend through {@code ServiceLoader} and
 * opens a runtime on it. Everything else of the core (capture lifecycle, pools, the metadata cache, the stream's
 * parts) is internal to the module.
 */
@NullMarked
package dev.graphrt.core;

import org.jspecify.annotations.NullMarked;
