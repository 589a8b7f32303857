package dev.graphrt.core.runtime;

import java.util.List;

/** The first-failure-primary rule, once: the first failure is thrown, every later one suppressed onto it. */
final class Failures {
    private Failures() {}

    /** Throws the first of {@code failures} with the others suppressed onto it; returns when there are none. */
    static void throwFirst(List<? extends RuntimeException> failures) {
        if (failures.isEmpty()) {
            return;
        }
        RuntimeException first = failures.get(0);
        failures.stream().skip(1).filter(later -> later != first).forEach(first::addSuppressed);
        throw first;
    }
}
