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
 * paths and the like). Immutable: build one with {@link #builder()} (or change some of a value's components with
 * {@link #toBuilder()}, or with the withers, each a shorthand for that).
 *
 * @param backend                  backend name to force, or empty
 * @param deviceIndex              device ordinal within the backend
 * @param pageBytes                size of one dynamic-pool page
 * @param maxPooledBytes           largest allocation the dynamic pool slices from pages; bigger ones get their own page
 * @param metadataCacheEntries     NORMAL-mode cache capacity in entries; 0 disables caching outside captures
 *                                 (default 1024, or {@code -Dgraphrt.metadataCacheEntries})
 * @param metadataMaxEntryBytes    NORMAL-mode size gate: info blocks larger than this are not cached
 * @param backendOptions           options for the backend, e.g. {@code cuda.nvrtc=/path/libnvrtc.so}
 * @param waitTimeout              the bound of every wait the core makes for the device (fences, synchronize,
 *                                 reads, close); past it the call fails with {@link WaitTimeoutException}
 * @param poolReserveBytes         free exact-fit memory (allocations above {@code maxPooledBytes}, and the
 *                                 capture pool's free slices) the pools may keep for reuse; beyond it unused
 *                                 allocations go back to the device, oldest first (default 256 MiB, or
 *                                 {@code -Dgraphrt.poolReserveBytes})
 * @param stagingBytes             bytes of host writes a stream may have queued before a write waits for the
 *                                 stream to drain (back-pressure instead of unbounded staging copies)
 * @param checked                  checked mode, a debugging aid (default off, or {@code -Dgraphrt.checked=true}):
 *                                 every buffer gets guard bytes holding a canary, verified when work completes
 *                                 (synchronize, read, {@link Graph#diagnose()}); a changed guard throws
 *                                 {@link BufferOverrunException} naming the buffer and the launches that used it
 */
public record RuntimeOptions(
        Optional<String> backend,
        int deviceIndex,
        long pageBytes,
        long maxPooledBytes,
        int metadataCacheEntries,
        int metadataMaxEntryBytes,
        Map<String, String> backendOptions,
        Duration waitTimeout,
        long poolReserveBytes,
        long stagingBytes,
        boolean checked) {

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
            throw new IllegalArgumentException(
                    "maxPooledBytes must be between 256 and pageBytes (" + pageBytes + "), was " + maxPooledBytes);
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
     * {@code -Dgraphrt.checked} says (off unless set). Three system properties change these defaults, so that a
     * test can open a runtime the way an application does and still choose: {@code graphrt.checked},
     * {@code graphrt.poolReserveBytes} and {@code graphrt.metadataCacheEntries} (the kit's model-based group opens
     * some runtimes with a small reserve and no info cache outside captures, where leaks show exactly).
     */
    public static RuntimeOptions defaults() {
        return builder().build();
    }

    /** A builder holding {@link #defaults()}: set what differs, then {@link Builder#build()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    public RuntimeOptions backend(String name) {
        return toBuilder().backend(name).build();
    }

    /**
     * Chooses the device by backend and ordinal (one of {@code GraphRT.devices()}): {@code backend(name)} and
     * {@code deviceIndex(ordinal)} together. An ordinal the backend does not have fails at open, naming the count.
     */
    public RuntimeOptions device(String backendName, int ordinal) {
        return toBuilder().backend(backendName).deviceIndex(ordinal).build();
    }

    /** The device ordinal within the backend; see {@link #device(String, int)}. */
    public RuntimeOptions deviceIndex(int index) {
        return toBuilder().deviceIndex(index).build();
    }

    public RuntimeOptions pool(long newPageBytes, long newMaxPooledBytes) {
        return toBuilder()
                .pageBytes(newPageBytes)
                .maxPooledBytes(newMaxPooledBytes)
                .build();
    }

    public RuntimeOptions metadataCache(int entries, int maxEntryBytes) {
        return toBuilder()
                .metadataCacheEntries(entries)
                .metadataMaxEntryBytes(maxEntryBytes)
                .build();
    }

    public RuntimeOptions backendOption(String key, String value) {
        return toBuilder().backendOption(key, value).build();
    }

    /** The bound of every wait for the device; see {@link WaitTimeoutException}. */
    public RuntimeOptions waitTimeout(Duration timeout) {
        return toBuilder().waitTimeout(timeout).build();
    }

    /** How much free exact-fit memory the pools may keep before returning unused allocations to the device. */
    public RuntimeOptions poolReserve(long bytes) {
        return toBuilder().poolReserveBytes(bytes).build();
    }

    /** Checked mode on or off (guard bytes with a canary around every buffer; a debugging aid). */
    public RuntimeOptions checked(boolean on) {
        return toBuilder().checked(on).build();
    }

    /** How many bytes of host writes a stream may queue before a write waits for it to drain. */
    public RuntimeOptions stagingLimit(long bytes) {
        return toBuilder().stagingBytes(bytes).build();
    }

    /**
     * Options under construction, one setter per component (named as the component). It starts from
     * {@link #defaults()} ({@link RuntimeOptions#builder()}) or from given options ({@link #toBuilder()});
     * {@link #build()} checks the values as the record's constructor does. Not thread-safe; reusable.
     */
    public static final class Builder {
        private Optional<String> backend = Optional.empty();
        private int deviceIndex;
        private long pageBytes = 8L << 20;
        private long maxPooledBytes = 1L << 20;
        private int metadataCacheEntries = Integer.getInteger("graphrt.metadataCacheEntries", 1024);
        private int metadataMaxEntryBytes = 1024;
        private final Map<String, String> backendOptions = new HashMap<>();
        private Duration waitTimeout = Duration.ofSeconds(60);
        private long poolReserveBytes = Long.getLong("graphrt.poolReserveBytes", 256L << 20);
        private long stagingBytes = 256L << 20;
        private boolean checked = Boolean.getBoolean("graphrt.checked");

        private Builder() {}

        private Builder(RuntimeOptions from) {
            backend = from.backend;
            deviceIndex = from.deviceIndex;
            pageBytes = from.pageBytes;
            maxPooledBytes = from.maxPooledBytes;
            metadataCacheEntries = from.metadataCacheEntries;
            metadataMaxEntryBytes = from.metadataMaxEntryBytes;
            backendOptions.putAll(from.backendOptions);
            waitTimeout = from.waitTimeout;
            poolReserveBytes = from.poolReserveBytes;
            stagingBytes = from.stagingBytes;
            checked = from.checked;
        }

        /** Forces the backend named {@code name}. */
        public Builder backend(String name) {
            backend = Optional.of(Objects.requireNonNull(name, "name"));
            return this;
        }

        /** Lets discovery choose the backend again (the best available, or the system property or variable). */
        public Builder anyBackend() {
            backend = Optional.empty();
            return this;
        }

        public Builder deviceIndex(int index) {
            deviceIndex = index;
            return this;
        }

        public Builder pageBytes(long bytes) {
            pageBytes = bytes;
            return this;
        }

        public Builder maxPooledBytes(long bytes) {
            maxPooledBytes = bytes;
            return this;
        }

        public Builder metadataCacheEntries(int entries) {
            metadataCacheEntries = entries;
            return this;
        }

        public Builder metadataMaxEntryBytes(int bytes) {
            metadataMaxEntryBytes = bytes;
            return this;
        }

        /** Adds (or replaces) one backend option. */
        public Builder backendOption(String key, String value) {
            backendOptions.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Replaces every backend option by {@code options}. */
        public Builder backendOptions(Map<String, String> options) {
            Objects.requireNonNull(options, "options");
            backendOptions.clear();
            options.forEach(this::backendOption);
            return this;
        }

        public Builder waitTimeout(Duration timeout) {
            waitTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public Builder poolReserveBytes(long bytes) {
            poolReserveBytes = bytes;
            return this;
        }

        public Builder stagingBytes(long bytes) {
            stagingBytes = bytes;
            return this;
        }

        public Builder checked(boolean on) {
            checked = on;
            return this;
        }

        /** The options; an invalid value fails here, naming it. */
        public RuntimeOptions build() {
            return new RuntimeOptions(
                    backend,
                    deviceIndex,
                    pageBytes,
                    maxPooledBytes,
                    metadataCacheEntries,
                    metadataMaxEntryBytes,
                    backendOptions,
                    waitTimeout,
                    poolReserveBytes,
                    stagingBytes,
                    checked);
        }
    }
}
