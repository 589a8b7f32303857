package dev.graphrt.spi;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A launch's resolved arguments: the buffers' slices in parameter order and, when the launch has info
 * words, the slice of the cached info buffer holding them (passed as the last parameter).
 *
 * @param buffers    buffer slices in parameter order
 * @param info       the info buffer slice, or {@code null} when the launch has no info words
 * @param infoWords  number of 32-bit info words in {@code info}
 */
public record Bindings(List<DeviceSlice> buffers, @Nullable DeviceSlice info, int infoWords) {
    public Bindings {
        Objects.requireNonNull(buffers, "buffers");
        if ((info == null) != (infoWords == 0)) {
            throw new IllegalArgumentException("info slice and infoWords disagree: " + info + ", " + infoWords);
        }
    }

    public boolean hasInfo() {
        return info != null;
    }

    /** Parameter count: buffers plus the info buffer when present. */
    public int parameterCount() {
        return buffers.size() + (info != null ? 1 : 0);
    }
}
