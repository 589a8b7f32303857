package dev.graphrt.spi;

/**
 * A communicator whose operations are launches of the backend's own (the cpu backend's ranks meet inside a Java
 * kernel): the core launches the result on the rank's stream outside a capture, and records it like any launch in
 * one, so a software graph replays it and a rebind patches its buffers.
 */
public non-sealed interface LaunchCommunicator extends BackendCommunicator {
    /** {@code call} as a launch of this rank's stream; runs nothing. */
    RecordedLaunch launch(CollectiveCall call);
}
