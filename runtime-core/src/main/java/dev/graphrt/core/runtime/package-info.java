/**
 * The runtime and its streams: the façade parts that own the operation table, the guards and the graphs. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.runtime;

import org.jspecify.annotations.NullMarked;
