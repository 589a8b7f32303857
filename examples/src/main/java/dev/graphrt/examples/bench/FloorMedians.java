package dev.graphrt.examples.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The plain webgpu.h program's ({@link WebGpuFloor}) medians for one {@link DecodeBench} row, µs per dispatch,
 * per chunk size.
 *
 * @param chunks      the chunk sizes run
 * @param totals      median total per dispatch for each chunk size
 * @param encodes     median host encode time per dispatch for each
 * @param submits     median host finish + submit time per dispatch for each
 * @param deviceBusy  median device time inside the passes per dispatch (timestamp queries), NaN without them
 * @param deviceSpan  median device time from the first pass's start to the last's end per dispatch, or NaN
 */
record FloorMedians(
        int[] chunks, double[] totals, double[] encodes, double[] submits, double[] deviceBusy, double[] deviceSpan) {
    int best() {
        int b = 0;
        for (int i = 1; i < totals.length; i++) {
            if (totals[i] < totals[b]) {
                b = i;
            }
        }
        return b;
    }

    double bestMicros() {
        return totals[best()];
    }

    int bestChunk() {
        return chunks[best()];
    }

    /** Profile lines for this row: per chunk size, host encode, host submit, device busy and span, total. */
    List<String> profile(String label) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < chunks.length; i++) {
            lines.add(String.format(
                    "| %s | floor, chunks of %d | %.2f | %.2f | %s | %s | %.2f |",
                    label, chunks[i], encodes[i], submits[i], micros(deviceBusy[i]), micros(deviceSpan[i]), totals[i]));
        }
        return lines;
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "-" : String.format("%.2f", value);
    }

    String shapes() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < chunks.length; i++) {
            out.append(i == 0 ? "" : "; ")
                    .append(String.format(
                            "%d: %.2f (enc %.2f, sub %.2f)", chunks[i], totals[i], encodes[i], submits[i]));
        }
        return out.toString();
    }
}
