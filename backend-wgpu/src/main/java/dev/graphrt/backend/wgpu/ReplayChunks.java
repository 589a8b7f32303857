package dev.graphrt.backend.wgpu;

import java.util.Locale;

/**
 * How a replay splits its recording into submissions. WebGPU cannot resubmit a command buffer, so every replay
 * encodes its dispatches again; submitting them in chunks lets the device run chunk {@code k} while the host
 * encodes chunk {@code k + 1}, where one long submission would run the host's encoding and the device's work one
 * after the other (measured on an H200: 3.27 µs per dispatch in one pass, 2.16 in chunks of 128; see
 * docs/benchmarks/wgpu-h200.md). Chunks that are too small pay a submission each for little work.
 *
 * <p>{@link #adaptive} sizes chunks to the recording: at most {@code target} dispatches each, split evenly. On a
 * GPU the target is {@value #GPU_TARGET}, so a recording of 1000 launches replays as 8 chunks of 125 and one of 100
 * launches as a single chunk. On a CPU adapter (lavapipe) the "device" runs on the same cores as the encoding, so
 * nothing overlaps and every extra submission only costs: there the target is {@value #CPU_TARGET} (measured in
 * docs/benchmarks/wgpu-lavapipe.md: one pass is as fast as chunks of 128 or faster). A fixed size
 * ({@code wgpu.replayChunk=N}) is there to measure other shapes.
 *
 * @param fixed  dispatches per chunk, or 0 for the adaptive rule
 * @param target the most dispatches of one adaptive chunk
 */
record ReplayChunks(int fixed, int target) {
    /** The most dispatches of one adaptive chunk on a GPU. */
    static final int GPU_TARGET = 128;
    /** The most dispatches of one adaptive chunk on a CPU adapter. */
    static final int CPU_TARGET = 4096;

    ReplayChunks {
        if (fixed < 0 || target <= 0) {
            throw new IllegalArgumentException(
                    "fixed must not be negative and target must be positive, was " + fixed + " and " + target);
        }
    }

    /** Chunks of at most the adapter's target, split evenly. */
    static ReplayChunks adaptive(boolean cpuAdapter) {
        return new ReplayChunks(0, cpuAdapter ? CPU_TARGET : GPU_TARGET);
    }

    /**
     * Reads a {@code wgpu.replayChunk} option value: {@code auto} (or nothing: {@link #adaptive}) or a positive
     * count.
     */
    static ReplayChunks parse(String option, String value, boolean cpuAdapter) {
        if (value == null
                || value.isBlank()
                || value.strip().toLowerCase(Locale.ROOT).equals("auto")) {
            return adaptive(cpuAdapter);
        }
        try {
            int parsed = Integer.parseInt(value.strip());
            if (parsed <= 0) {
                throw new NumberFormatException("not positive");
            }
            return new ReplayChunks(parsed, parsed);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    option + " must be 'auto' or a positive integer, was '" + value + "'", e);
        }
    }

    /** The end index (exclusive) of each chunk of a recording of {@code launches} launches, ascending. */
    int[] ends(int launches) {
        if (launches == 0) {
            return new int[0];
        }
        int size = fixed > 0 ? fixed : evenSize(launches);
        int count = (launches + size - 1) / size;
        int[] ends = new int[count];
        for (int i = 0; i < count; i++) {
            ends[i] = Math.min(launches, (i + 1) * size);
        }
        return ends;
    }

    private int evenSize(int launches) {
        int chunks = (launches + target - 1) / target;
        return (launches + chunks - 1) / chunks;
    }

    @Override
    public String toString() {
        return fixed > 0 ? fixed + " per chunk" : "adaptive (at most " + target + " per chunk)";
    }
}
