/**
 * The JFR events the core commits (captures, replays, updates, releases), for profilers and the micrometer bridge. Internal to runtime-core (not exported).
 */
package dev.graphrt.core.events;
