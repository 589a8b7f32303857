package dev.graphrt.core.memory;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.time.Duration;

/**
 * The one bounded wait for a fence: a raw backend failure becomes {@link DriverException}, and a fence that does
 * not complete within the bound becomes {@link WaitTimeoutException} naming the stream and what it waited for.
 */
public final class FenceWait {
    private FenceWait() {}

    public static void await(
            BackendStream stream, Fence fence, Duration timeout, String streamName, String waitingFor) {
        boolean done;
        try {
            done = stream.await(fence, timeout);
        } catch (GraphRTException failure) {
            throw failure;
        } catch (RuntimeException failure) {
            throw new DriverException(streamName + ": fence wait", failure);
        }
        if (!done) {
            throw new WaitTimeoutException(
                    streamName + ": waited " + timeout.toMillis() + " ms for " + waitingFor
                            + " and the device did not finish the work before it; what that work uses stays held "
                            + "(RuntimeOptions.waitTimeout sets the bound)",
                    timeout);
        }
    }
}
