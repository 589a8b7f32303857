/**
 * Finding and opening backends: the {@code ServiceLoader} providers, their probes and the choice among them. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.discovery;

import org.jspecify.annotations.NullMarked;
