package dev.graphrt.api;

/**
 * What a backend can do beyond the contract every backend meets. Declared by the backend
 * ({@code Backend.capabilities()} in the SPI), asked of a runtime by users ({@link GraphRuntime#capabilities()}),
 * and verified both ways by the conformance kit: a declared capability must work, an undeclared one must
 * fail with {@link UnsupportedCapabilityException} or the documented rejection.
 */
public enum Capability {
    /** A capture window may grow the persistent pool; the new slice is pinned to the graph. */
    MID_CAPTURE_ALLOCATION,
    /** Host-to-device writes inside a capture are recorded and replayed from a graph-owned copy. */
    RECORDS_WRITES,
    /**
     * A graph may be replayed inside another capture, as a child graph: a hardware backend adds a child-graph node
     * (the driver clones the graph), a software one records the child's launches. Declared by cuda and hip.
     */
    NESTED_GRAPHS,
    /**
     * Capture mode RELAXED is accepted (other threads may use the recording stream). GLOBAL and THREAD_LOCAL (the
     * default mode) are part of the base contract, not capabilities.
     */
    CAPTURE_MODE_RELAXED,
    /**
     * A live graph can be changed in place: {@code Graph.update} (a re-recorded step of the same shape) and
     * {@code Graph.rebind} (a buffer swapped). Declared by all four backends (cuda and hip where the library has the
     * update calls).
     */
    GRAPH_UPDATE,
    /** {@code toDot()} comes from the driver's own dump. */
    DOT_EXPORT,
    /**
     * One capture may span several streams (fork/join): a stream that waits for an event recorded in a capture joins
     * it, and {@code record()}/{@code waitFor} work while a stream records. Declared by all four backends (a software
     * backend's recording is one list in call order).
     */
    MULTI_STREAM_CAPTURE,
    /**
     * After a sticky device error (a trapping kernel, an illegal address), which loses the runtime with a
     * {@code DeviceLostException}, a new runtime in the same process works. Declared by wgpu (a lost WebGPU device
     * leaves the instance usable). Not declared by cuda or hip: on the NVIDIA driver a trap poisons the whole
     * process (measured; see docs/decisions.md).
     */
    DEVICE_LOSS_RECOVERY,
    /**
     * Kernels that opt in ({@link KernelSource#programmaticDependent()}) are launched so that each may start before
     * the work ahead of it on its stream has finished, and waits inside the kernel before it touches memory
     * (Hopper's programmatic dependent launch: {@code cuLaunchKernelEx} with programmatic stream serialization,
     * programmatic edges in a captured graph). Declared by cuda on devices of compute capability 9.0 or more.
     * Where it is not declared, an opted-in launch is an ordinary launch and its wait does nothing, so results are
     * the same everywhere: only the time between dependent kernels changes.
     */
    PROGRAMMATIC_DEPENDENT_LAUNCH,
    /**
     * Collective operations between the ranks of a {@link Communicator} ({@link GraphRuntime#collectives()}): an
     * all-reduce, all-gather, reduce-scatter or broadcast, stream-ordered like a launch and recorded by a capture, so
     * a captured step that all-reduces replays with its graph. Declared by cuda where NCCL loads, hip where RCCL
     * loads, and cpu (ranks are runtimes of one process, met by threads). Not declared by wgpu.
     */
    COLLECTIVES
}
