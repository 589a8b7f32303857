package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.spi.Backend;
import org.jspecify.annotations.Nullable;

/**
 * What a stream needs of its runtime, and nothing more: argument checks against the runtime's own objects, its
 * services (memory, policy, observers, ids), and the runtime-wide capture facts. The runtime implements it; a stream
 * and its parts know only this interface, so nothing below the runtime depends on the runtime's class.
 */
interface StreamHost {
    // ---- arguments: objects of this runtime, checked before anything is held or enqueued ----------------

    CoreBuffer checkBuffer(Buffer buffer, String argument);

    /** A buffer of this runtime or of another runtime of the same backend (a copy between devices). */
    CoreBuffer checkCopyBuffer(Buffer buffer, String argument);

    boolean owns(CoreBuffer buffer);

    CoreKernel checkKernel(Kernel kernel);

    CoreGraph checkGraph(Graph graph, String argument);

    /** The options' graph pool as this runtime's, or null when the options name none. */
    @Nullable
    CorePool checkPool(@Nullable GraphPool pool);

    void checkAllocationSize(long bytes, String argument);

    /** Refuses every call once the runtime is closed or lost. */
    void checkOpen(String operation);

    // ---- services ------------------------------------------------------------------------------------

    RuntimeOptions options();

    RuntimeScope scope();

    MemoryManager memory();

    OperationPolicy policy();

    Backend backend();

    Observers observers();

    /** Checked mode's guards, or null when it is off. */
    @Nullable
    Guards guards();

    long nextBufferId();

    long nextGraphId();

    long nextStamp();

    // ---- failures and the runtime-wide capture facts -----------------------------------------------------

    /** Turns a sticky device error into the runtime's loss (every later call fails fast); returns what to throw. */
    RuntimeException failed(String operation, RuntimeException failure);

    boolean isLost();

    /** Whether another stream's capture forbids device calls (fences, frees) from this thread now. */
    boolean anotherCaptureForbidsDeviceCalls(long streamId);

    /** A capture ended somewhere: closes that waited for device calls to be allowed run now. */
    void captureEnded();

    // ---- the runtime's registers --------------------------------------------------------------------------

    /** Runs {@code close} (stream {@code streamId}'s deferred close) once no capture forbids it. */
    void closeLater(long streamId, Runnable close);

    /** Stream {@code streamId} closed: the runtime no longer closes it. */
    void streamClosed(long streamId);

    void graphSealed(CoreGraph graph);

    void graphReleased(CoreGraph graph);

    /** The open communicators of this runtime's streams, closed with the runtime. */
    Communicators communicators();
}
