package dev.graphrt.core.runtime;

import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Which launches of one recording pass each argument slice, so a rebind touches only the launches it changes
 * (issue 29: a rebind of one node of 1,000 compared every launch's buffers, most of its 13.8 µs on the H200). Built
 * once per graph, in one pass over the recording; a rebind carries it over to the patched recording by moving the
 * launches of {@code from} to {@code to}, which costs the number of distinct slices, not of launches.
 */
final class LaunchIndex {
    private static final int[] NONE = new int[0];

    /** The recording this index describes (by identity): an index of another recording is never used. */
    private final RecordedLaunches recording;
    /** Ascending launch indices per slice. */
    private final Map<DeviceSlice, int[]> launchesBySlice;

    private LaunchIndex(RecordedLaunches recording, Map<DeviceSlice, int[]> launchesBySlice) {
        this.recording = recording;
        this.launchesBySlice = launchesBySlice;
    }

    /** Indexes {@code recording}: one pass over every launch's buffers. */
    static LaunchIndex of(RecordedLaunches recording) {
        List<RecordedLaunch> launches = recording.launches();
        Map<DeviceSlice, List<Integer>> found = new HashMap<>();
        for (int i = 0; i < launches.size(); i++) {
            List<DeviceSlice> buffers = launches.get(i).bindings().buffers();
            for (int b = 0; b < buffers.size(); b++) {
                if (firstAt(buffers, b)) {
                    found.computeIfAbsent(buffers.get(b), k -> new ArrayList<>())
                            .add(i);
                }
            }
        }
        Map<DeviceSlice, int[]> launchesBySlice = new HashMap<>();
        found.forEach((slice, at) -> launchesBySlice.put(
                slice, at.stream().mapToInt(Integer::intValue).toArray()));
        return new LaunchIndex(recording, launchesBySlice);
    }

    /** Whether {@code buffers}' slice {@code b} is its first occurrence: a slice passed twice counts once. */
    private static boolean firstAt(List<DeviceSlice> buffers, int b) {
        DeviceSlice slice = buffers.get(b);
        for (int earlier = 0; earlier < b; earlier++) {
            if (buffers.get(earlier).equals(slice)) {
                return false;
            }
        }
        return true;
    }

    /** Whether this index describes {@code current} (the very recording, not an equal one). */
    boolean describes(@Nullable RecordedLaunches current) {
        return recording == current;
    }

    /** The launches that pass {@code slice}, ascending; empty when none does. */
    int[] launchesOf(DeviceSlice slice) {
        return launchesBySlice.getOrDefault(slice, NONE);
    }

    /** The index of {@code patched}: this one with every launch of {@code from} passing {@code to} instead. */
    LaunchIndex moved(RecordedLaunches patched, DeviceSlice from, DeviceSlice to) {
        Map<DeviceSlice, int[]> next = new HashMap<>(launchesBySlice);
        int[] moving = next.remove(from);
        if (moving != null) {
            int[] already = next.getOrDefault(to, NONE);
            next.put(to, union(already, moving));
        }
        return new LaunchIndex(patched, next);
    }

    private static int[] union(int[] a, int[] b) {
        int[] out = new int[a.length + b.length];
        int i = 0;
        int j = 0;
        int n = 0;
        while (i < a.length || j < b.length) {
            int next = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
            if (n == 0 || out[n - 1] != next) {
                out[n++] = next;
            }
        }
        return Arrays.copyOf(out, n);
    }
}
