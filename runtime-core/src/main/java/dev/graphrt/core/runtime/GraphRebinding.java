package dev.graphrt.core.runtime;

import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A rebind worked out before anything changes ({@code Graph.rebind}): the recording with every argument slice
 * equal to {@code from}'s replaced by {@code to}'s, and the indices of the launches that changed.
 */
record GraphRebinding(RecordedLaunches patched, int[] changed) {

    static GraphRebinding of(RecordedLaunches recording, DeviceSlice from, DeviceSlice to) {
        List<RecordedLaunch> launches = recording.launches();
        List<RecordedLaunch> patched = new ArrayList<>(launches.size());
        int[] changed = new int[launches.size()];
        int count = 0;
        for (int i = 0; i < launches.size(); i++) {
            RecordedLaunch launch = launches.get(i);
            List<DeviceSlice> buffers = launch.bindings().buffers();
            if (!buffers.contains(from)) {
                patched.add(launch);
                continue;
            }
            List<DeviceSlice> swapped = new ArrayList<>(buffers.size());
            for (DeviceSlice slice : buffers) {
                swapped.add(slice.equals(from) ? to : slice);
            }
            Bindings bindings = launch.bindings();
            patched.add(new RecordedLaunch(
                    launch.kernel(),
                    launch.dims(),
                    new Bindings(List.copyOf(swapped), bindings.info(), bindings.infoWords())));
            changed[count++] = i;
        }
        return new GraphRebinding(new RecordedLaunches(patched), Arrays.copyOf(changed, count));
    }

    /**
     * The holds the rebound graph keeps, each taken now: one for every buffer or graph {@code old} holds, one for
     * {@code to}, and none for {@code from} unless the driver also recorded writes (which a rebind leaves as they
     * are, so they may still use it). A child graph keeps its own buffers held itself.
     */
    List<Retainable> holdsAfter(SealedWindow old, CoreBuffer from, CoreBuffer to) {
        Set<Retainable> keep = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Retainable> holds = new ArrayList<>();
        for (Retainable held : old.retained()) {
            if ((held != from || old.recordedWrites()) && keep.add(held)) {
                holds.add(held);
            }
        }
        if (keep.add(to)) {
            holds.add(to);
        }
        for (int i = 0; i < holds.size(); i++) {
            if (!holds.get(i).retain()) {
                holds.subList(0, i).forEach(Retainable::release);
                throw new IllegalArgumentException(
                        (holds.get(i) == to ? "to: " : "rebind: ") + holds.get(i) + " is closed and no longer held");
            }
        }
        return holds;
    }
}
