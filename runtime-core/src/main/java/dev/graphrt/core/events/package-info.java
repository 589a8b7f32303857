/**
 * The JFR events the core commits (captures, replays, updates, releases), for profilers and the micrometer bridge. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.events;

import org.jspecify.annotations.NullMarked;
