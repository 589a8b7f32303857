package dev.graphrt.core.recording;

import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.ArrayList;
import java.util.List;

/**
 * What the core keeps of a capture window: every resolved launch (for a software graph that is the graph
 * itself; for a hardware graph it is what {@code Graph.diagnose()} re-runs), and a label per node for
 * {@code toDot()} when the driver gives none.
 */
public final class LaunchRecorder {
    /** How the label of a child-graph node begins. */
    private static final String CHILD_LABEL_PREFIX = "graph #";

    private final boolean softwareGraph;
    private final List<RecordedLaunch> launches = new ArrayList<>();
    /** Each node: a launch, or a child graph's label (named lazily: {@link NodeLabels}). */
    private final List<Object> nodes = new ArrayList<>();

    public LaunchRecorder(boolean softwareGraph) {
        this.softwareGraph = softwareGraph;
    }

    public void add(RecordedLaunch launch) {
        launches.add(launch);
        nodes.add(launch);
    }

    /**
     * Adds a replayed child graph: a software recording takes the child's launches as its own (the child's
     * recording); a hardware one, where the driver recorded the child, keeps one label for it.
     */
    public void addChild(long childId, int childNodes, RecordedLaunches childRecording) {
        if (softwareGraph) {
            childRecording.launches().forEach(this::add);
        } else {
            launches.addAll(childRecording.launches());
            nodes.add(CHILD_LABEL_PREFIX + childId + " (" + childNodes + " nodes)");
        }
    }

    /** How a launch is named in DOT output and diagnostics: kernel, grid and block. */
    public static String label(RecordedLaunch launch) {
        var d = launch.dims();
        return launch.kernel().entryPoint() + " grid " + d.gridX() + "x" + d.gridY() + "x" + d.gridZ() + " block "
                + d.blockX() + "x" + d.blockY() + "x" + d.blockZ();
    }

    public RecordedLaunches seal() {
        return new RecordedLaunches(launches);
    }

    public NodeLabels labels() {
        return new NodeLabels(nodes);
    }

    public int size() {
        return nodes.size();
    }

    /** Graphviz DOT: one node per launch, edges in stream order. */
    public static String toDot(long graphId, List<String> labels) {
        StringBuilder dot =
                new StringBuilder("digraph graphrt_graph_").append(graphId).append(" {\n");
        for (int i = 0; i < labels.size(); i++) {
            dot.append("  n")
                    .append(i)
                    .append(" [shape=box, label=\"")
                    .append(i)
                    .append(": ")
                    .append(labels.get(i).replace("\"", "\\\""))
                    .append("\"];\n");
        }
        for (int i = 1; i < labels.size(); i++) {
            dot.append("  n").append(i - 1).append(" -> n").append(i).append(";\n");
        }
        return dot.append("}\n").toString();
    }
}
