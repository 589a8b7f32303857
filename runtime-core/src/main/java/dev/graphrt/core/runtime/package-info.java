/**
 * The runtime and its streams: the façade parts that own the operation table, the guards and the graphs. Internal to runtime-core (not exported).
 */
package dev.graphrt.core.runtime;
