package dev.graphrt.core.recording;

import dev.graphrt.spi.RecordedLaunch;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The nodes of a recording, named for {@code toDot()} and diagnostics: a launch's name (kernel, grid, block) is
 * made when it is read, not while recording, so a capture pays nothing for names nobody reads. Immutable.
 */
public final class NodeLabels extends AbstractList<String> implements RandomAccess {
    /** Each node: a {@link RecordedLaunch}, or the label of a child graph (a String). */
    private final List<Object> nodes;

    NodeLabels(List<Object> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    @Override
    public String get(int index) {
        Object node = nodes.get(index);
        return node instanceof RecordedLaunch launch ? LaunchRecorder.label(launch) : (String) node;
    }

    @Override
    public int size() {
        return nodes.size();
    }

    /** Whether node {@code index} is a child graph rather than a launch. */
    public boolean isChild(int index) {
        return !(nodes.get(index) instanceof RecordedLaunch);
    }
}
