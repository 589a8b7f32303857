package dev.graphrt.core.runtime;

import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.OutOfBoundsAccess;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One stream's part of checked mode: it makes guarded buffers, remembers which buffers the stream's work touched
 * since it last looked (launch arguments, the buffers of replayed graphs) with the launches that used them, and
 * after a host sync reads their guards back. A no-op object when checked mode is off. Not thread-safe: the
 * owning stream serialises calls.
 */
final class CheckedWork {
    private final @Nullable Guards guards;
    private final Set<CoreBuffer> touched = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @param guards the runtime's guards, or null when checked mode is off */
    CheckedWork(@Nullable Guards guards) {
        this.guards = guards;
    }

    boolean on() {
        return guards != null;
    }

    /** A buffer for {@code bytes} in {@code slice} (which has {@link #extraBytes()} more): guarded when checked. */
    CoreBuffer buffer(RuntimeScope scope, long id, PoolSlice slice, long bytes) {
        return guards == null
                ? new CoreBuffer(scope, id, slice, bytes)
                : new CoreBuffer(scope, id, slice, guards.arm(slice, bytes), bytes);
    }

    long extraBytes() {
        return guards == null ? 0 : guards.extra();
    }

    /** A launch used these buffers. */
    void launched(String label, CoreBuffer[] used) {
        if (guards != null) {
            for (CoreBuffer buffer : used) {
                buffer.noteLaunch(label);
                touch(buffer);
            }
        }
    }

    /** A replay used every buffer its graph retains. */
    void replayed(CoreGraph graph) {
        if (guards != null) {
            for (Retainable held : graph.retained()) {
                if (held instanceof CoreBuffer buffer && buffer.checked()) {
                    buffer.noteLaunch("replay of graph #" + graph.id());
                    touch(buffer);
                }
            }
        }
    }

    /**
     * Holds a touched buffer until its guards were read: closed by its user (or by another thread) before the
     * next host sync, its slot must not be freed, reused or re-armed before the overrun in it is reported.
     */
    private void touch(CoreBuffer buffer) {
        if (!touched.contains(buffer) && buffer.retain()) {
            touched.add(buffer);
        }
    }

    /**
     * After a host sync: reads the guards of every buffer touched since the last look; the first overrun is
     * returned, later ones suppressed onto it. Empty when checked mode is off.
     */
    Optional<BufferOverrunException> check(BackendStream stream) {
        if (guards == null || touched.isEmpty()) {
            return Optional.empty();
        }
        @Nullable BufferOverrunException first = null;
        for (CoreBuffer buffer : touched) {
            if (!buffer.checked()) {
                continue;
            }
            Optional<BufferOverrunException> found;
            try {
                found = guards.check(buffer, stream);
            } catch (GraphRTException known) {
                throw known;
            } catch (RuntimeException raw) {
                throw new DriverException("checked mode: reading the guards of " + buffer, raw);
            }
            if (found.isPresent()) {
                if (first == null) {
                    first = found.get();
                } else {
                    first.addSuppressed(found.get());
                }
            }
        }
        forget();
        return Optional.ofNullable(first);
    }

    /**
     * What a backend's stopped out-of-bounds access means to the user: in checked mode the overrun of the buffer it
     * touched (named as the user knows it, with its last launches); otherwise a driver failure that names the kernel,
     * the argument and the offset.
     */
    GraphRTException overrun(String operation, OutOfBoundsAccess access) {
        if (guards != null) {
            for (CoreBuffer buffer : touched) {
                if (buffer.storage().equals(access.slice())) {
                    long offset = access.offset() < 0 ? access.offset() : Math.max(access.offset(), buffer.byteSize());
                    return new BufferOverrunException(buffer.toString(), offset, buffer.lastLaunches());
                }
            }
        }
        return new DriverException(operation, access);
    }

    /** Lets go of every touched buffer without reading its guards (the stream is closing). */
    void forget() {
        for (CoreBuffer buffer : touched) {
            buffer.release();
        }
        touched.clear();
    }

    /** A diagnosis step: the guards of {@code graph}'s buffers after step {@code label} ran; the first overrun. */
    Optional<BufferOverrunException> checkGraph(CoreGraph graph, String label, BackendStream stream) {
        if (guards == null) {
            return Optional.empty();
        }
        for (Retainable held : graph.retained()) {
            if (held instanceof CoreBuffer buffer && buffer.checked() && buffer.alive()) {
                buffer.noteLaunch(label);
                Optional<BufferOverrunException> overrun = guards.check(buffer, stream);
                if (overrun.isPresent()) {
                    return overrun;
                }
            }
        }
        return Optional.empty();
    }
}
