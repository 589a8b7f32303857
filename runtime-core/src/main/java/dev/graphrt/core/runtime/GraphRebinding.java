package dev.graphrt.core.runtime;

import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A rebind worked out before anything changes ({@code Graph.rebind}): the recording with every argument slice
 * equal to {@code from}'s replaced by {@code to}'s, and the indices of the launches that changed.
 */
record GraphRebinding(RecordedLaunches patched, int[] changed) {

    /**
     * Works out the rebind of {@code from} to {@code to} over {@code recording}, touching only the launches
     * {@code index} names for {@code from}; the other launches are shared with the recording as they are.
     */
    static GraphRebinding of(RecordedLaunches recording, LaunchIndex index, DeviceSlice from, DeviceSlice to) {
        int[] changed = index.launchesOf(from);
        if (changed.length == 0) {
            return new GraphRebinding(recording, changed);
        }
        List<RecordedLaunch> patched = new ArrayList<>(recording.launches());
        for (int i : changed) {
            RecordedLaunch launch = patched.get(i);
            Bindings bindings = launch.bindings();
            List<DeviceSlice> buffers = bindings.buffers();
            DeviceSlice[] swapped = new DeviceSlice[buffers.size()];
            for (int b = 0; b < swapped.length; b++) {
                DeviceSlice slice = buffers.get(b);
                swapped[b] = slice.equals(from) ? to : slice;
            }
            patched.set(
                    i,
                    new RecordedLaunch(
                            launch.kernel(),
                            launch.dims(),
                            new Bindings(List.of(swapped), bindings.info(), bindings.infoWords())));
        }
        return new GraphRebinding(new RecordedLaunches(patched), changed.clone());
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
