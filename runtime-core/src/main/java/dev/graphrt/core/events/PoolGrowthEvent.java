package dev.graphrt.core.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import org.jspecify.annotations.Nullable;

/** JFR: a pool reserved new device memory. Rare by design; frequent growth means a workload is unpooled. */
@Name("dev.graphrt.PoolGrowth")
@Label("GraphRT pool growth")
@Category("GraphRT")
public final class PoolGrowthEvent extends Event {
    @Label("Backend")
    @Nullable
    String backend;

    @Label("Pool")
    @Nullable
    String pool;

    @Label("Requested")
    @DataAmount
    long requested;

    @Label("Reserved")
    @DataAmount
    long reserved;

    public static void emit(String backend, String pool, long requested, long reserved) {
        PoolGrowthEvent event = new PoolGrowthEvent();
        if (event.isEnabled()) {
            event.backend = backend;
            event.pool = pool;
            event.requested = requested;
            event.reserved = reserved;
            event.commit();
        }
    }
}
