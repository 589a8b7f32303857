package dev.graphrt.api;

import java.util.Objects;

/**
 * What {@link Graph#update} did: the new recording was {@link Applied applied} to the live graph, or
 * {@link Rejected rejected}, naming the first node that differs. A rejected update leaves the graph exactly as it
 * was: it replays the old recording, with the memory and buffers it had.
 */
public sealed interface UpdateResult permits UpdateResult.Applied, UpdateResult.Rejected {

    /** Whether the graph now replays the new recording. */
    boolean applied();

    /** What made an update impossible. */
    enum Difference {
        /** A different number of nodes, or nodes connected differently. */
        TOPOLOGY,
        /** A node runs another kernel. */
        KERNEL,
        /** A node's grid or block changed in a way the backend cannot apply in place. */
        LAUNCH_DIMS,
        /** A node of another type (a launch where a child graph or a copy was). */
        NODE_TYPE,
        /** The driver refused the update for a reason of its own (the reason says which). */
        DRIVER
    }

    /** The graph replays the new recording from its next replay on. */
    record Applied(long graphId, int nodes) implements UpdateResult {
        @Override
        public boolean applied() {
            return true;
        }
    }

    /**
     * The graph is unchanged.
     *
     * @param graphId    the graph
     * @param difference what differs
     * @param nodeIndex  index of the first differing node in recording order, or -1 when the driver named none
     * @param kernel     that node's kernel in the new recording (its entry point), or empty
     * @param reason     a sentence saying what differs, for a log or an exception
     */
    record Rejected(long graphId, Difference difference, int nodeIndex, String kernel, String reason)
            implements UpdateResult {
        public Rejected {
            Objects.requireNonNull(difference, "difference");
            Objects.requireNonNull(kernel, "kernel");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public boolean applied() {
            return false;
        }
    }
}
