package dev.graphrt.core.events;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a live graph changed in place: an update (applied or rejected) or a rebind, with how long it took. */
@Name("dev.graphrt.GraphUpdate")
@Label("GraphRT graph update")
@Category("GraphRT")
@StackTrace(false)
public final class GraphUpdateEvent extends Event {
    @Label("Graph")
    public long graph;

    @Label("Kind")
    public @Nullable String kind;

    @Label("Outcome")
    public @Nullable String outcome;
}
