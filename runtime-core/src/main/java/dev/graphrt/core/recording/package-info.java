/**
 * What a capture recorded: launches, writes and children, compared for updates and patched for rebinds. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.recording;

import org.jspecify.annotations.NullMarked;
