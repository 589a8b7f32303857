package dev.graphrt.api;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to open a runtime: which backend (empty = the best available, or {@code -Dgraphrt.backend} /
 * {@code GRAPHRT_BACKEND}), which device, the pool geometry and the metadata cache limits, plus free-form
 * options passed to the backend (library paths and the like). Immutable; use the withers.
 *
 * @param backend                  backend name to force, or empty
 * @param deviceIndex              device ordinal within the backend
 * @param pageBytes                size of one dynamic-pool page
 * @param maxPooledBytes           largest allocation the dynamic pool slices from pages; bigger ones get their own page
 * @param metadataCacheEntries     NORMAL-mode cache capacity in entries; 0 disables caching outside captures
 * @param metadataMaxEntryBytes    NORMAL-mode size gate: info blocks larger than this are not cached
 * @param backendOptions           options for the backend, e.g. {@code cuda.nvrtc=/path/libnvrtc.so}
 */
public record RuntimeOptions(Optional<String> backend, int deviceIndex, long pageBytes, long maxPooledBytes,
                             int metadataCacheEntries, int metadataMaxEntryBytes,
                             Map<String, String> backendOptions) {

    public RuntimeOptions {
        Objects.requireNonNull(backend, "backend");
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
        backendOptions = Map.copyOf(backendOptions);
    }

    /** Best backend, device 0, 8 MiB pages, pooled up to 1 MiB, 1024 cached info blocks of up to 1 KiB. */
    public static RuntimeOptions defaults() {
        return new RuntimeOptions(Optional.empty(), 0, 8L << 20, 1L << 20, 1024, 1024, Map.of());
    }

    public RuntimeOptions backend(String name) {
        Objects.requireNonNull(name, "name");
        return new RuntimeOptions(Optional.of(name), deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions);
    }

    public RuntimeOptions deviceIndex(int index) {
        return new RuntimeOptions(backend, index, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions);
    }

    public RuntimeOptions pool(long newPageBytes, long newMaxPooledBytes) {
        return new RuntimeOptions(backend, deviceIndex, newPageBytes, newMaxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, backendOptions);
    }

    public RuntimeOptions metadataCache(int entries, int maxEntryBytes) {
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, entries, maxEntryBytes,
                backendOptions);
    }

    public RuntimeOptions backendOption(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Map<String, String> copy = new HashMap<>(backendOptions);
        copy.put(key, value);
        return new RuntimeOptions(backend, deviceIndex, pageBytes, maxPooledBytes, metadataCacheEntries,
                metadataMaxEntryBytes, copy);
    }
}
