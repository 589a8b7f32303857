package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PhaseMarkers} through a profiler library's process-wide ranges: a start call that takes a C string and
 * returns a 64-bit range id, and an end call that takes the id ({@code nvtxRangeStartA}/{@code nvtxRangeEnd} of
 * NVIDIA's {@code libnvToolsExt}; {@code roctxRangeStartA}/{@code roctxRangeStop} have the same shape). Loaded
 * once per backend; when no candidate library loads, {@link PhaseMarkers#NONE}.
 *
 * <p>A failing call is logged once and the ranges stop, since a profiler marker must never fail the work it marks.
 * Range names are made into C strings once (a stream has four), up to a bound past which each call makes its own.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
public final class NativeRangeMarkers implements PhaseMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(NativeRangeMarkers.class);
    private static final int MAX_CACHED_NAMES = 1024;

    private final MethodHandle start;
    private final MethodHandle end;
    private final String origin;
    private final Map<String, MemorySegment> names = new ConcurrentHashMap<>();
    private final AtomicBoolean failed = new AtomicBoolean();

    private NativeRangeMarkers(MethodHandle start, MethodHandle end, String origin) {
        this.start = start;
        this.end = end;
        this.origin = origin;
    }

    /**
     * The markers of the first of {@code libraries} (names for the loader or paths) that loads and exports
     * {@code startSymbol} and {@code endSymbol}; {@link PhaseMarkers#NONE} when none does.
     */
    public static PhaseMarkers load(List<String> libraries, String startSymbol, String endSymbol) {
        for (String library : libraries) {
            Optional<PhaseMarkers> markers = bind(library, startSymbol, endSymbol);
            if (markers.isPresent()) {
                LOG.debug("profiler ranges through {} from {}", startSymbol, library);
                return markers.get();
            }
        }
        LOG.debug("no profiler library among {}: phases are not marked", libraries);
        return PhaseMarkers.NONE;
    }

    private static Optional<PhaseMarkers> bind(String library, String startSymbol, String endSymbol) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException | IllegalCallerException absent) {
            return Optional.empty();
        }
        Optional<MemorySegment> startAddress = lookup.find(startSymbol);
        Optional<MemorySegment> endAddress = lookup.find(endSymbol);
        if (startAddress.isEmpty() || endAddress.isEmpty()) {
            LOG.debug("{} lacks {} or {}", library, startSymbol, endSymbol);
            return Optional.empty();
        }
        Linker linker = Linker.nativeLinker();
        return Optional.of(new NativeRangeMarkers(
                linker.downcallHandle(startAddress.get(), FunctionDescriptor.of(JAVA_LONG, ADDRESS)),
                linker.downcallHandle(endAddress.get(), FunctionDescriptor.ofVoid(JAVA_LONG)),
                library));
    }

    /** Where the library came from. */
    public String origin() {
        return origin;
    }

    @Override
    public Range range(String name) {
        if (failed.get()) {
            return Range.NONE;
        }
        try {
            long id;
            MemorySegment cached = names.get(name);
            if (cached == null && names.size() < MAX_CACHED_NAMES) {
                cached = names.computeIfAbsent(name, n -> Arena.global().allocateFrom(n));
            }
            if (cached != null) {
                id = (long) start.invokeExact(cached);
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    id = (long) start.invokeExact(arena.allocateFrom(name));
                }
            }
            return () -> endRange(id);
        } catch (Throwable failure) {
            stop(failure);
            return Range.NONE;
        }
    }

    private void endRange(long id) {
        try {
            end.invokeExact(id);
        } catch (Throwable failure) {
            stop(failure);
        }
    }

    private void stop(Throwable failure) {
        if (failed.compareAndSet(false, true)) {
            LOG.warn("profiler ranges through {} failed; no more ranges are marked: {}", origin, failure.toString());
        }
    }
}
