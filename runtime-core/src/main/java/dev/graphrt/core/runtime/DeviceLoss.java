package dev.graphrt.core.runtime;

import dev.graphrt.api.DeviceLostException;
import dev.graphrt.core.events.DeviceLostEvent;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a runtime's device was lost, and to what (DESIGN.md section 9): the first failure that carries a sticky
 * device error loses the runtime, which from then on fails every call fast, naming where the device was lost.
 */
final class DeviceLoss {
    private static final Logger LOG = LoggerFactory.getLogger(CoreRuntime.class); // the runtime's category, as before

    private final String backend;
    /** The first sticky device error; once set, every call fails fast. */
    private volatile @Nullable DeviceLostException lost;

    DeviceLoss(String backend) {
        this.backend = backend;
    }

    boolean isLost() {
        return lost != null;
    }

    /** Refuses {@code operation} once the device was lost, naming where it was lost. */
    void check(String operation) {
        DeviceLostException first = lost;
        if (first != null) {
            throw new DeviceLostException(
                    operation + ": the " + backend + " device of this runtime was lost "
                            + "earlier, in " + first.operation() + " (" + first.getMessage()
                            + "); close this runtime and open "
                            + "a new one",
                    operation,
                    first);
        }
    }

    /**
     * What to throw for {@code failure} of {@code operation}: when a sticky device error is in it (itself, a cause
     * or a suppressed error), the runtime is lost from now on and a {@link DeviceLostException} naming the
     * operation is thrown; any other failure is returned as it is.
     */
    RuntimeException failed(String operation, RuntimeException failure) {
        DeviceLostException sticky = stickyIn(failure, 0);
        if (sticky == null) {
            return failure;
        }
        if (failure instanceof DeviceLostException known && known.operation().equals(operation)) {
            return known;
        }
        DeviceLostException reported =
                new DeviceLostException(operation + ": " + failure.getMessage(), operation, failure);
        synchronized (this) {
            if (lost == null) {
                lost = reported;
                LOG.warn(
                        "the {} runtime is lost: {} hit a sticky device error: {}",
                        backend,
                        operation,
                        sticky.getMessage());
                DeviceLostEvent event = new DeviceLostEvent();
                if (event.shouldCommit()) {
                    event.backend = backend;
                    event.operation = operation;
                    event.error = sticky.getMessage();
                    event.commit();
                }
            }
        }
        return reported;
    }

    private static @Nullable DeviceLostException stickyIn(@Nullable Throwable failure, int depth) {
        if (failure == null || depth > 8) {
            return null;
        }
        if (failure instanceof DeviceLostException lostHere) {
            return lostHere;
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            DeviceLostException found = stickyIn(suppressed, depth + 1);
            if (found != null) {
                return found;
            }
        }
        return stickyIn(failure.getCause(), depth + 1);
    }
}
