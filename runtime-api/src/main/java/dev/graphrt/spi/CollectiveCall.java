package dev.graphrt.spi;

import dev.graphrt.api.ElementType;
import dev.graphrt.api.ReduceOp;
import java.util.Objects;

/**
 * One collective operation of one rank, checked and resolved by the core: the slices it reads and writes and its
 * element count as NCCL counts it. A backend only carries it out; the sizes already fit.
 */
public sealed interface CollectiveCall {
    /** What the operation reads on this rank. */
    DeviceSlice send();

    /** What it writes on this rank (may be {@link #send()} itself: in place). */
    DeviceSlice recv();

    /** Elements, as the call's NCCL function takes its count. */
    long count();

    ElementType type();

    /** {@code recv[i] = op over ranks of send[i]}, {@code i < count}. */
    record AllReduce(DeviceSlice send, DeviceSlice recv, long count, ElementType type, ReduceOp op)
            implements CollectiveCall {
        public AllReduce {
            check(send, recv, count, type);
            Objects.requireNonNull(op, "op");
        }
    }

    /** {@code recv[r * count + i] = send[i] of rank r}: {@code count} elements sent by each rank. */
    record AllGather(DeviceSlice send, DeviceSlice recv, long count, ElementType type) implements CollectiveCall {
        public AllGather {
            check(send, recv, count, type);
        }
    }

    /** {@code recv[i] = op over ranks of send[rank * count + i]}: {@code count} elements received by each rank. */
    record ReduceScatter(DeviceSlice send, DeviceSlice recv, long count, ElementType type, ReduceOp op)
            implements CollectiveCall {
        public ReduceScatter {
            check(send, recv, count, type);
            Objects.requireNonNull(op, "op");
        }
    }

    /** {@code recv[i] = send[i] of rank root}, {@code i < count}. */
    record Broadcast(DeviceSlice send, DeviceSlice recv, long count, ElementType type, int root)
            implements CollectiveCall {
        public Broadcast {
            check(send, recv, count, type);
            if (root < 0) {
                throw new IllegalArgumentException("root must not be negative, was " + root);
            }
        }
    }

    private static void check(DeviceSlice send, DeviceSlice recv, long count, ElementType type) {
        Objects.requireNonNull(send, "send");
        Objects.requireNonNull(recv, "recv");
        Objects.requireNonNull(type, "type");
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive, was " + count);
        }
    }
}
