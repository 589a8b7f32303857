package dev.graphrt.api;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to open a runtime: which backend (empty = the best available, or {@code -Dgraphrt.backend} /
 * {@code GRAPHRT_BACKEND}), which device, the pool geometry and budget, the metadata cache limits, the bound
 * of every wait, the back-pressure on queued writes, plus free-form options passed to the backend (library
 * paths and the like). Immutable; use the withers.
 *
 * @param backend                  backend name to force, or empty
 * @param deviceIndex              device ordinal within the backend
 * @param pageBytes                size of one dynamic-pool page
 * @param maxPooledBytes           largest allocation the dynamic pool slices from pages; bigger ones get their own page
 * @param metadataCacheEntries     NORMAL-mode cache capacity in entries; 0 disables caching outside captures
 * @param metadataMaxEntryBytes    NORMAL-mode size gate: info blocks larger than this are not cached
 * @param backendOptions           options for the backend, e.g. {@code cuda.nvrtc=/path/libnvrtc.so}
 * @param waitTimeout              the bound of every wait the core makes for the device (fences, synchronize,
 *                                 reads, close); past it the call fails with {@link WaitTimeoutException}
 * @param poolReserveBytes         free exact-fit memory (allocations above {@code maxPooledBytes}, and the
 *                                 capture pool's free slices) the pools may keep for reuse; beyond it unused
 *                                 allocations go back to the device, oldest first
 * @param stagingBytes             bytes of host writes a stream may have queued before a write waits for the
 *                                 stream to drain (back-pressure instead of unbounded staging copies)
 * @param checked                  checked mode, a debugging aid (default off, or {@code -Dgraphrt.checked=true}):
 *                                 every buffer gets guard bytes holding a canary, verified when work completes
 *                                 (synchronize, read, {@link Graph#diagnose()}); a changed guard throws
 *                                 {@link BufferOverrunException} naming the buffer and the launches that used it
 */
public record RuntimeOptions(Optional<String> backend, int deviceIndex, long pageBytes, long maxPooledBytes,
                             int metadataCacheEntries, int metadataMaxEntryBytes,
                             Map<String, String> backendOptions, Duration waitTimeout, long poolReserveBytes,
                             long stagingBytes, boolean checked) {

    public RuntimeOptions {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(backendOptions, "backendOptions");
        Objects.requireNonNull(waitTimeout, "waitTimeout");
        if (deviceIndex < 0) {
            throw new IllegalArgumentException("deviceIndex must be >= 0, was " + deviceIndex);
        }
        if (pageBytes < 4096 || Long.bitCount(pageBytes) != 1) {
            throw new IllegalArgumentException("pageBytes must be a power of two >= 4096, was " + pageBytes);
        }
        if (maxPooledBytes < 256 || maxPooledBytes > pageBytes) {
            throw new IllegalArgumentException("maxPooledBytes must be between 256 and pageBytes (" + pageBytes
                    + "), was " + maxPooledBytes);
        }
        if (metadataCacheEntries < 0) {
            throw new IllegalArgumentException("metadataCacheEntries must be >= 0, was " + metadataCacheEntries);
        }
        if (metadataMaxEntryBytes < 4) {
            throw new IllegalArgumentException("metadataMaxEntryBytes must be >= 4, was " + metadataMaxEntryBytes);
        }
        if (waitTimeout.isNegative() || waitTimeout.isZero()) {
            throw new IllegalArgumentException("waitTimeout must be positive, was " + waitTimeout);
        }
        if (poolReserveBytes < 0) {
            throw new IllegalArgumentException("poolReserveBytes must be >= 0, was " + poolReserveBytes);
        }
        if (stagingBytes < 1) {
            throw new IllegalArgumentException("stagingBytes must be >= 1, was " + stagingBytes);
        }
        backendOptions = Map.copyOf(backendOptions);
    }

    /**
     * Best backend, device 0, 8 MiB pages, pooled up to 1 MiB, 1024 cached info blocks of up to 1 KiB, waits
     * bounded at 60 s, 256 MiB of free exact-fit memory kept, 256 MiB of queued writes per stream, checked mode as
     * {@code -Dgraphrt.checked} says (off unless set).
     */
    public static RuntimeOptions defaults() {
        return new RuntimeOptions(Optional.empty(), 0, 8L << 20, 1L << 20, 1024, 1024, Map.of(),
                Duration.ofSeconds(60), 256L << 20, 256L << 20, Boolean.getBoolean("graphrt.checked"));
    }

    public RuntimeOptions backend(String name) {
        Objects.requireNonNull(name, "name");
        return new RuntimeOptions(Optional.of(name), deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, waitTimeout, poolReserveBytes, stagingBytes, checked);
    }

    /**
     * Chooses the device by backend and ordinal (one of {@code GraphRT.devices()}): {@code backend(name)} and
     * {@code deviceIndex(ordinal)} together. An ordinal the backend does not have fails at open, naming the count.
     */
    public RuntimeOptions device(String backendName, int ordinal) {
        return backend(backendName).deviceIndex(ordinal);
    }

    /** The device ordinal within the backend; see {@link #device(String, int)}. */
    public RuntimeOptions deviceIndex(int index) {
        return new RuntimeOptions(backend, index, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, waitTimeout, poolReserveBytes, stagingBytes, checked);
    }

    public RuntimeOptions pool(long newPageBytes, long newMaxPooledBytes) {
        return new RuntimeOptions(backend, deviceIndex, newPageBytes, newMaxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, waitTimeout, poolReserveBytes, stagingBytes, checked);
    }

    public RuntimeOptions metadataCache(int entries, int maxEntryBytes) {
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, entries, maxEntryBytes,
                backendOptions, waitTimeout, poolReserveBytes, stagingBytes, checked);
    }

    public RuntimeOptions backendOption(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Map<String, String> copy = new HashMap<>(backendOptions);
        copy.put(key, value);
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, copy, waitTimeout, poolReserveBytes, stagingBytes, checked);
    }

    /** The bound of every wait for the device; see {@link WaitTimeoutException}. */
    public RuntimeOptions waitTimeout(Duration timeout) {
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, timeout, poolReserveBytes, stagingBytes, checked);
    }

    /** How much free exact-fit memory the pools may keep before returning unused allocations to the device. */
    public RuntimeOptions poolReserve(long bytes) {
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, waitTimeout, bytes, stagingBytes, checked);
    }

    /** Checked mode on or off (guard bytes with a canary around every buffer; a debugging aid). */
    public RuntimeOptions checked(boolean on) {
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, waitTimeout, poolReserveBytes, stagingBytes, on);
    }

    /** How many bytes of host writes a stream may queue before a write waits for it to drain. */
    public RuntimeOptions stagingLimit(long bytes) {
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions, waitTimeout, poolReserveBytes, bytes, checked);
    }
}
