package dev.graphrt.driver;

import java.util.List;

/**
 * Steps that must all run even when one fails (a close, a destroy, a group's end): the first failure is the one
 * thrown, the later ones are suppressed on it, so none is lost and none hides the first.
 */
final class Failures {
    private Failures() {}

    /** {@code next} joined to {@code first}: {@code next} itself when there was none yet. */
    static RuntimeException join(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Runs {@code step}; returns {@code first} with the step's failure joined to it (null when neither failed). */
    static RuntimeException attempt(RuntimeException first, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            return join(first, e);
        }
        return first;
    }

    /** Runs every step, then throws the first failure with the others suppressed. */
    static void runAll(List<Runnable> steps) {
        RuntimeException failure = null;
        for (Runnable step : steps) {
            failure = attempt(failure, step);
        }
        if (failure != null) {
            throw failure;
        }
    }
}
