package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.core.memory.Retainable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Device-to-device copies: within a runtime asynchronous, recorded by a hardware capture, through the host where
 * the backend cannot copy; between runtimes of one backend (another device) device to device where the backend can
 * reach it, returning once the copy completed, with the other runtime's memory on loan until then.
 */
final class StreamCopies {
    private final StreamWork work;
    private final StreamContext c;

    StreamCopies(StreamContext c, StreamWork work) {
        this.c = c;
        this.work = work;
    }

    void copy(Buffer src, Buffer dst) {
        c.host().checkOpen("copy");
        CoreBuffer from = c.host().checkCopyBuffer(src, "src");
        CoreBuffer to = c.host().checkCopyBuffer(dst, "dst");
        boolean ownSource = c.host().owns(from);
        boolean ownTarget = c.host().owns(to);
        if (!ownSource && !ownTarget) {
            throw new IllegalArgumentException("src and dst: neither " + from + " nor " + to + " belongs to this "
                    + "stream's runtime; copy on a stream of the runtime of one of them");
        }
        if (from == to) {
            throw new IllegalArgumentException("src and dst are the same buffer " + from + ": a copy needs two");
        }
        if (from.byteSize() > to.byteSize()) {
            throw new IllegalArgumentException("dst: " + to + " holds " + to.byteSize() + " bytes, fewer than src "
                    + from + " (" + from.byteSize() + " bytes)");
        }
        if (ownSource && ownTarget) {
            copyWithin(from, to);
        } else {
            copyBetweenRuntimes(from, to, ownSource ? to : from);
        }
    }

    /** A copy within this runtime: asynchronous, recorded by a hardware capture, through the host where it must. */
    private void copyWithin(CoreBuffer from, CoreBuffer to) {
        c.guard().runJoined("copy", null, origin -> {
            if (origin != null) {
                c.membership().rejectOnOrigin(origin, "copy of " + from + " to " + to);
                return;
            }
            switch (c.policy().copy(c.lifecycle().current())) {
                case RUN -> {
                    c.memory().hold(from, "src");
                    c.memory().hold(to, "dst");
                    if (!c.backend().copy(from.storage().prefix(from.byteSize()), to.storage())) {
                        copyThroughHost(from, to);
                    }
                }
                case RECORD_IN_DRIVER -> {
                    c.memory().hold(from, "src");
                    c.memory().hold(to, "dst");
                    if (c.backend().copy(from.storage().prefix(from.byteSize()), to.storage())) {
                        // a node the core's recording does not hold: a rebind leaves it, and its buffers, as they are
                        c.lifecycle().noteRecordedWrite();
                    } else {
                        c.lifecycle()
                                .rejectLazily("copy of " + from + " to " + to + " (the "
                                        + c.policy().backend()
                                        + " backend cannot copy device to device, so the copy cannot be recorded)");
                    }
                }
                case DEFER_REJECTION ->
                    c.lifecycle()
                            .rejectLazily("copy of " + from + " to " + to + " (the "
                                    + c.policy().backend()
                                    + " backend's software graphs hold launches only: copy before prepare() "
                                    + "or between replays)");
            }
        });
    }

    /** For a backend without device-to-device copies: a read and a write, in stream order, through host memory. */
    private void copyThroughHost(CoreBuffer from, CoreBuffer to) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staged = arena.allocate(from.byteSize(), 16);
            work.read(from, staged);
            work.write(to, staged);
        }
    }

    /**
     * A copy between this runtime and another of the same backend (another device): device to device where the
     * backend can reach the other device, refused otherwise; it returns once the copy completed, so the other
     * runtime's buffer is used only while this call holds it.
     */
    private void copyBetweenRuntimes(CoreBuffer from, CoreBuffer to, CoreBuffer foreign) {
        String foreignArgument = foreign == from ? "src" : "dst";
        CoreBuffer own = foreign == from ? to : from;
        c.guard().run("copy", null, () -> {
            c.policy().checkCopyBetweenRuntimes(c.membership().state(), c.id());
            c.checkHostSyncBesideCapture("copy");
            c.memory().hold(own, foreign == from ? "dst" : "src");
            Loan loan = Loan.take(foreign, foreignArgument);
            boolean copied;
            try {
                copied = c.backend().copy(from.storage().prefix(from.byteSize()), to.storage());
            } catch (RuntimeException failure) {
                // the driver may have enqueued it: keep the memory until the stream is done
                c.memory().holdUntilDone(loan);
                throw failure;
            }
            if (!copied) {
                loan.release();
                throw new IllegalArgumentException(foreignArgument + ": the "
                        + c.policy().backend() + " backend "
                        + "cannot copy between its runtimes (" + foreign.scope().device() + " and this stream's); "
                        + "read and upload through the host");
            }
            c.memory().holdUntilDone(loan); // let go only once the copy is done, even if the wait below fails
            c.blame().hostSync(() -> c.memory().awaitAll("a copy between runtimes of " + from + " to " + to));
            c.memory().afterSync();
        });
    }

    /**
     * Another runtime's buffer, held for a copy between runtimes: the buffer itself (its storage stays out of that
     * runtime's pools) and a loan of that runtime's memory (its close waits for the loan), both let go together.
     */
    private record Loan(CoreBuffer buffer) implements Retainable {
        static Loan take(CoreBuffer buffer, String argument) {
            RuntimeScope owner = buffer.scope();
            if (!owner.lend()) {
                throw new IllegalArgumentException(
                        argument + ": " + buffer + " belongs to a runtime that is closing (" + owner.device() + ")");
            }
            if (!buffer.retain()) {
                owner.giveBack();
                throw new IllegalArgumentException(argument + ": " + buffer + " is closed");
            }
            return new Loan(buffer);
        }

        @Override
        public boolean retain() {
            throw new UnsupportedOperationException("a loan is taken once and released once");
        }

        @Override
        public void release() {
            try {
                buffer.release();
            } finally {
                buffer.scope().giveBack();
            }
        }

        @Override
        public long retainedBytes() {
            return 0; // the other runtime accounts for its own storage
        }
    }
}
