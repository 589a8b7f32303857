package dev.graphrt.micrometer;

import dev.graphrt.api.RuntimeObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.time.Duration;

/**
 * Turns what a runtime reports into meters of one registry. The hot meters (replays, replay and capture timers) are
 * registered once, by {@link #registerMeters()}, which the binder calls only after the runtime accepted the
 * subscription (a closed runtime's refusal leaves the registry untouched); until then reports are dropped. Pool
 * growth, which is rare, looks its per-pool counters up when it happens.
 */
final class MeteringObserver implements RuntimeObserver {
    private final MeterRegistry registry;
    private final Tags tags;
    private volatile boolean registered;
    private Timer capture;
    private Counter replays;
    private Timer replay;

    MeteringObserver(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.tags = tags;
    }

    void registerMeters() {
        this.capture = Timer.builder("graphrt.capture")
                .tags(tags)
                .description("capture windows, from prepare to the sealed graph")
                .register(registry);
        this.replays = Counter.builder("graphrt.replays")
                .tags(tags)
                .description("graph replays enqueued")
                .register(registry);
        this.replay = Timer.builder("graphrt.replay")
                .tags(tags)
                .description("a replay from its enqueue until the synchronize that saw it done")
                .register(registry);
        registered = true; // publishes the three meters to the reporting threads
    }

    @Override
    public void captured(long streamId, long graphId, int nodes, Duration took) {
        if (registered) {
            capture.record(took);
        }
    }

    @Override
    public void replayed(long streamId, long graphId) {
        if (registered) {
            replays.increment();
        }
    }

    @Override
    public void replayCompleted(long streamId, long graphId, Duration sinceEnqueue) {
        if (registered) {
            replay.record(sinceEnqueue);
        }
    }

    @Override
    public void poolGrew(String pool, long requestedBytes, long reservedBytes) {
        if (!registered) {
            return;
        }
        Tags poolTags = tags.and("pool", pool);
        Counter.builder("graphrt.pool.growths")
                .tags(poolTags)
                .description("times a pool reserved more from the device")
                .register(registry)
                .increment();
        Counter.builder("graphrt.pool.grown")
                .tags(poolTags)
                .baseUnit(BaseUnits.BYTES)
                .description("bytes a pool reserved from the device as it grew")
                .register(registry)
                .increment(reservedBytes);
    }
}
