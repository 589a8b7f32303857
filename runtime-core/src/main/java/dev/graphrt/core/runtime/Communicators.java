package dev.graphrt.core.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The communicators whose stream belongs to one runtime and that their user has not closed: the runtime closes them
 * when it closes, after its streams and graphs let go of them and before the device goes, so no native communicator
 * outlives its device.
 */
final class Communicators {
    private final Set<CoreCommunicator> open = ConcurrentHashMap.newKeySet();

    void add(CoreCommunicator communicator) {
        open.add(communicator);
    }

    void remove(CoreCommunicator communicator) {
        open.remove(communicator);
    }

    /** How many are open (not closed by their user). */
    int count() {
        return open.size();
    }

    /** Closes every open one; failures are added to {@code failures}. */
    void closeAll(List<RuntimeException> failures) {
        for (CoreCommunicator communicator : new ArrayList<>(open)) {
            try {
                communicator.close();
            } catch (RuntimeException failure) {
                failures.add(failure);
            }
        }
    }
}
