package dev.graphrt.core.runtime;

import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.spi.BackendStream;
import java.time.Duration;

/**
 * What every part of one stream shares, handed to each part once instead of field by field: the stream as its
 * peers see it, its runtime, the call skeleton, its membership, its pooled window, checked mode and replay blame,
 * and what follows from them (the operation table, the backend stream, memory and lifecycle).
 */
record StreamContext(
        StreamPeer self,
        StreamHost host,
        StreamGuard guard,
        Membership membership,
        PooledWindow window,
        CheckedWork checked,
        ReplayBlame blame) {
    long id() {
        return self.id();
    }

    OperationPolicy policy() {
        return host.policy();
    }

    BackendStream backend() {
        return self.backendStream();
    }

    StreamMemory memory() {
        return self.memory();
    }

    CaptureLifecycle lifecycle() {
        return self.lifecycle();
    }

    Duration waitTimeout() {
        return host.options().waitTimeout();
    }

    /**
     * Refuses a host synchronisation of this stream ({@code operation}) while another stream's capture forbids
     * device calls from this thread: the one check every host-syncing call of the stream makes.
     */
    void checkHostSyncBesideCapture(String operation) {
        policy().checkHostSyncBesideCapture(host.anotherCaptureForbidsDeviceCalls(id()), operation, id());
    }
}
