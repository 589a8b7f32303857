package dev.graphrt.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Driver events simulated in Java: a record gets the next position; work completes up to a position. */
final class FakeEvents implements EventFences.Events<Integer> {
    private final Map<Integer, Long> recordedAt = new HashMap<>();
    final List<Integer> destroyed = new ArrayList<>();
    private int nextEvent;
    private long position;
    private long completedThrough;
    int created;
    int records;
    int synchronizations;
    int queries;

    /** The device finished everything recorded so far. */
    void completeAll() {
        completedThrough = position;
    }

    @Override
    public Integer create() {
        created++;
        return nextEvent++;
    }

    @Override
    public void record(Integer event) {
        records++;
        recordedAt.put(event, ++position);
    }

    @Override
    public boolean query(Integer event) {
        queries++;
        return recordedAt.getOrDefault(event, 0L) <= completedThrough;
    }

    @Override
    public void synchronize(Integer event) {
        synchronizations++;
        completedThrough = Math.max(completedThrough, recordedAt.getOrDefault(event, 0L));
    }

    @Override
    public void destroy(Integer event) {
        destroyed.add(event);
    }
}
