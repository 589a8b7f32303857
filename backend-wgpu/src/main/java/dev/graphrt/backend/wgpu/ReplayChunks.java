package dev.graphrt.backend.wgpu;

import java.util.Locale;

/**
 * How a replay splits its recording into submissions. WebGPU cannot resubmit a command buffer, so every replay
 * encodes its dispatches again; submitting them in chunks lets the device run chunk {@code k} while the host
 * encodes chunk {@code k + 1}, where one long submission would run the host's encoding and the device's work one
 * after the other (measured on an H200: 3.27 µs per dispatch in one pass, 2.16 in chunks of 128; see
 * docs/benchmarks/wgpu-h200.md). Chunks that are too small pay a submission each for little work.
 *
 * <p>{@link #adaptive()} sizes chunks to the recording: at most {@value #TARGET} dispatches each, split evenly, so
 * a recording of 1000 launches replays as 8 chunks of 125 and one of 100 launches as a single chunk. A fixed
 * size ({@code wgpu.replayChunk=N}) is there to measure other shapes.
 *
 * @param fixed dispatches per chunk, or 0 for the adaptive rule
 */
record ReplayChunks(int fixed) {
    /** The most dispatches one adaptive chunk holds. */
    static final int TARGET = 128;

    ReplayChunks {
        if (fixed < 0) {
            throw new IllegalArgumentException("fixed must not be negative, was " + fixed);
        }
    }

    static ReplayChunks adaptive() {
        return new ReplayChunks(0);
    }

    /** Reads a {@code wgpu.replayChunk} option value: {@code auto} (or nothing) or a positive count. */
    static ReplayChunks parse(String option, String value) {
        if (value == null || value.isBlank() || value.strip().toLowerCase(Locale.ROOT).equals("auto")) {
            return adaptive();
        }
        try {
            int parsed = Integer.parseInt(value.strip());
            if (parsed <= 0) {
                throw new NumberFormatException("not positive");
            }
            return new ReplayChunks(parsed);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be 'auto' or a positive integer, was '" + value + "'",
                    e);
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

    private static int evenSize(int launches) {
        int chunks = (launches + TARGET - 1) / TARGET;
        return (launches + chunks - 1) / chunks;
    }

    @Override
    public String toString() {
        return fixed > 0 ? fixed + " per chunk" : "adaptive (at most " + TARGET + " per chunk)";
    }
}
