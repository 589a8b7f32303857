package dev.graphrt.core.events;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: one replay enqueued (host-side cost only; the device work is asynchronous). */
@Name("dev.graphrt.Replay")
@Label("GraphRT replay")
@Category("GraphRT")
@StackTrace(false)
public final class ReplayEvent extends Event {
    @Label("Graph")
    public long graph;
}
