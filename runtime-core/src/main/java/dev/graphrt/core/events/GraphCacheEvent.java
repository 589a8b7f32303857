package dev.graphrt.core.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import org.jspecify.annotations.Nullable;

/** JFR: a graph cache missed (and captured, ran eagerly or failed) or evicted a graph; hits are counted, not logged. */
@Name("dev.graphrt.GraphCache")
@Label("GraphRT graph cache")
@Category("GraphRT")
public final class GraphCacheEvent extends Event {
    @Label("Stream")
    public long stream;

    @Label("Key")
    public @Nullable String key;

    @Label("What happened")
    public @Nullable String outcome;

    @Label("Graphs cached")
    public int graphs;

    @Label("Pinned by the cache")
    @DataAmount
    public long pinnedBytes;
}
