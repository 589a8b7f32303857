package dev.graphrt.core.events;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import org.jspecify.annotations.Nullable;

/** JFR: one capture window, from {@code beginCapture} to the end of {@code endCapture} or its abort. */
@Name("dev.graphrt.Capture")
@Label("GraphRT capture")
@Category("GraphRT")
public final class CaptureEvent extends Event {
    @Label("Stream")
    public long stream;

    @Label("Graph")
    public long graph;

    @Label("Nodes")
    public int nodes;

    @Label("Outcome")
    public @Nullable String outcome;
}
