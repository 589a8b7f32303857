/**
 * Finding and opening backends: the {@code ServiceLoader} providers, their probes and the choice among them. Internal to runtime-core (not exported).
 */
package dev.graphrt.core.discovery;
