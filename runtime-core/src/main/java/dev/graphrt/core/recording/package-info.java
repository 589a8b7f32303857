/**
 * What a capture recorded: launches, writes and children, compared for updates and patched for rebinds. Internal to runtime-core (not exported).
 */
package dev.graphrt.core.recording;
