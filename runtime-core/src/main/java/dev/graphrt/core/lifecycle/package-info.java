/**
 * The capture lifecycle of one stream: PREPARE, CAPTURE and the sealed window, with the backend hooks around each transition. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.lifecycle;

import org.jspecify.annotations.NullMarked;
