package dev.graphrt.core.recording;

import dev.graphrt.api.UpdateResult;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.List;
import java.util.Optional;

/**
 * Whether a new recording can replace a live graph's in place ({@code Graph.update}), decided the same way for
 * every backend before any driver sees it: the same number of nodes (and child-graph nodes where they were),
 * and the same kernel at every node. Buffers, info words and launch dims may differ: that is what an update is
 * for. A driver may still refuse what it cannot apply; the backend reports that itself.
 */
public final class RecordingDiff {
    private RecordingDiff() {}

    /** The first difference that makes {@code next} inapplicable to {@code old}, or empty when there is none. */
    public static Optional<UpdateResult.Rejected> firstDifference(
            long graphId, RecordedLaunches old, NodeLabels oldLabels, RecordedLaunches next, NodeLabels nextLabels) {
        List<RecordedLaunch> was = old.launches();
        List<RecordedLaunch> now = next.launches();
        int common = Math.min(was.size(), now.size());
        for (int i = 0; i < common; i++) {
            RecordedLaunch before = was.get(i);
            RecordedLaunch after = now.get(i);
            if (before.kernel() != after.kernel()) {
                return Optional.of(new UpdateResult.Rejected(
                        graphId,
                        UpdateResult.Difference.KERNEL,
                        i,
                        after.kernel().entryPoint(),
                        "node " + i + " runs kernel " + after.kernel().entryPoint()
                                + " where the graph runs " + before.kernel().entryPoint()
                                + "; an update keeps every node's kernel: capture a new graph instead"));
            }
        }
        if (was.size() != now.size()) {
            String kernel = now.size() > common ? now.get(common).kernel().entryPoint() : "";
            return Optional.of(new UpdateResult.Rejected(
                    graphId,
                    UpdateResult.Difference.TOPOLOGY,
                    common,
                    kernel,
                    "the new recording has " + now.size() + " launches where the graph has " + was.size()
                            + " (the first differing node is " + common + "); an update keeps the graph's shape: "
                            + "capture a new graph instead"));
        }
        int i = firstStructuralDifference(oldLabels, nextLabels);
        if (i >= 0) {
            return Optional.of(new UpdateResult.Rejected(
                    graphId,
                    UpdateResult.Difference.NODE_TYPE,
                    i,
                    i < nextLabels.size() ? nextLabels.get(i) : "",
                    "node " + i + " is "
                            + (i < nextLabels.size() ? "'" + nextLabels.get(i) + "'" : "missing")
                            + " where the graph has "
                            + (i < oldLabels.size() ? "'" + oldLabels.get(i) + "'" : "none")
                            + "; an update keeps every node's type (launch or child graph)"));
        }
        return Optional.empty();
    }

    /**
     * Where the node lists disagree in structure (a child graph where a launch was, or another count; labels also
     * carry dims, which may change), or -1.
     */
    private static int firstStructuralDifference(NodeLabels a, NodeLabels b) {
        int common = Math.min(a.size(), b.size());
        for (int i = 0; i < common; i++) {
            if (a.isChild(i) != b.isChild(i)) {
                return i;
            }
        }
        return a.size() == b.size() ? -1 : common;
    }
}
