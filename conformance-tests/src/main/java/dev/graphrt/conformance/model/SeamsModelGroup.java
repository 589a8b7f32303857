package dev.graphrt.conformance.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Capability;
import dev.graphrt.api.GraphRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * The kit's model-based group (DESIGN.md section 12, "Testing the seams"): random sequences of public calls run on
 * the backend and on a plain-Java model of every buffer. After every call each readable buffer must equal the
 * model exactly, the refusals of section 3 and the capabilities come as the model predicts (an unpredicted success
 * or refusal fails), the memory statistics stay consistent, and after the runtime closes nothing is left. A failing
 * sequence is shrunk, and the failure names its seed and prints the shortest failing sequence as Java calls.
 *
 * <p>A self-contained runner, not a property-testing engine: the kit is plain JUnit 5 nested into each backend's one
 * test class. Each sequence opens its own runtime through {@link #openRuntime(boolean)} (checked mode for about one
 * in four; a lean runtime, with a small pool reserve and no info cache outside captures, for about one in four). A
 * harness over a fault-injecting backend extends it too ({@link #injected}, {@link #leftBehind}). System properties:
 * {@value #SEQUENCES} (default 200), {@value #SEED} (the first sequence's seed; the i-th runs seed + i, so
 * {@code -Dgraphrt.kit.modelSeed=<seed> -Dgraphrt.kit.modelSequences=1} reruns one),
 * {@value #KEEP_GOING} (true: run every sequence and report each kind of failure once, shrunk) and
 * {@value #SHRINK_RUNS} (the most candidate runs one shrink may make, default 400).
 */
public abstract class SeamsModelGroup {
    public static final String SEQUENCES = "graphrt.kit.modelSequences";
    public static final String SEED = "graphrt.kit.modelSeed";
    public static final String KEEP_GOING = "graphrt.kit.modelKeepGoing";
    public static final String SHRINK_RUNS = "graphrt.kit.modelShrinkRuns";
    /** The default first seed: fixed, so a plain kit run is reproducible. */
    public static final long DEFAULT_SEED = 20_251_201L;

    /**
     * Opens the runtime under test, in checked mode ({@code -Dgraphrt.checked}) or not, with options built on
     * {@code RuntimeOptions.defaults()}: a lean sequence's runtime opens while {@code -Dgraphrt.poolReserveBytes} and
     * {@code -Dgraphrt.metadataCacheEntries} are set.
     */
    protected abstract GraphRuntime openRuntime(boolean checked);

    /**
     * Whether {@code failure}, thrown by a call that reports deferred releases (a synchronize, a close), is one this
     * harness injected on purpose into the backend; the model then goes on. None by default.
     */
    protected boolean injected(Throwable failure) {
        return false;
    }

    /**
     * What the backend of the runtime opened last still holds once that runtime closed, or null for nothing: a
     * harness over a counting backend says; by default nothing is known.
     */
    protected String leftBehind() {
        return null;
    }

    /** How many sequences to run: {@value #SEQUENCES} (default 200). */
    protected int sequences() {
        return Integer.getInteger(SEQUENCES, 200);
    }

    @Test
    @DisplayName("random sequences of public calls agree with the model after every call, and leave nothing behind")
    public void random_sequences_of_public_calls_agree_with_the_model(TestReporter reporter) {
        int sequences = sequences();
        long seed = Long.getLong(SEED, DEFAULT_SEED);
        boolean keepGoing = Boolean.getBoolean(KEEP_GOING);
        int shrinkRuns = Integer.getInteger(SHRINK_RUNS, 400);
        Set<Capability> capabilities;
        String backend;
        try (GraphRuntime probe = openRuntime(false)) {
            capabilities = probe.capabilities();
            backend = probe.backendName();
        }
        Map<String, Integer> coverage = new TreeMap<>();
        SequenceRunner counting = new SequenceRunner(this, coverage);
        SequenceRunner runner = new SequenceRunner(this, null);
        List<Found> found = new ArrayList<>();
        Map<String, Integer> sequencesPerKind = new HashMap<>();
        long started = System.nanoTime();
        int ran = 0;
        for (int i = 0; i < sequences && (keepGoing || found.isEmpty()); i++) {
            Sequence sequence = SequenceGenerator.generate(seed + i, capabilities);
            ModelFailure failure = counting.run(sequence);
            ran++;
            if (failure != null && sequencesPerKind.merge(failure.kind(), 1, Integer::sum) == 1) {
                long after = (System.nanoTime() - started) / 1_000_000;
                found.add(new Found(
                        i + 1,
                        after,
                        sequence,
                        failure,
                        new Shrinker(runner::run, shrinkRuns).shrink(sequence, failure)));
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        reporter.publishEntry(
                "seams model",
                ran + " sequences on " + backend + " from seed " + seed + " in " + millis + " ms, " + found.size()
                        + " kind(s) of disagreement; exercised: " + coverage);
        StringBuilder summary = new StringBuilder("The seams model (" + backend + ", " + ran + " sequence(s) from seed "
                + seed + ", " + millis + " ms; rerun one sequence with -D" + SEED + "=<its seed> -D" + SEQUENCES
                + "=1) found " + found.size() + " kind(s) of disagreement with the backend:\n\n");
        for (int k = 0; k < found.size(); k++) {
            summary.append(describe(
                            k + 1,
                            found.get(k),
                            sequencesPerKind.get(found.get(k).kind())))
                    .append('\n');
        }
        summary.append("What the sequences exercised: ").append(coverage).append('\n');
        assertThat(found)
                .as("disagreements of the backend with the model")
                .withFailMessage(summary.toString())
                .isEmpty();
    }

    /** The first sequence that failed in a new way, and its shrunk form. */
    private record Found(int nth, long millis, Sequence original, ModelFailure first, Shrinker.Shrunk shrunk) {
        String kind() {
            return first.kind();
        }
    }

    private static String describe(int number, Found found, int sequences) {
        Sequence original = found.original();
        Shrinker.Shrunk shrunk = found.shrunk();
        ModelFailure failure = shrunk.failure();
        StringBuilder out = new StringBuilder();
        out.append(number)
                .append(". [")
                .append(found.kind())
                .append("] first found by sequence ")
                .append(found.nth())
                .append(" (seed ")
                .append(original.seed())
                .append(original.checked() ? ", checked mode" : "")
                .append(original.lean() ? ", lean" : "")
                .append(") after ")
                .append(found.millis())
                .append(" ms, failed this way by ")
                .append(sequences)
                .append(" sequence(s); shrunk from ")
                .append(original.actions().size())
                .append(" to ")
                .append(shrunk.sequence().actions().size())
                .append(" actions in ")
                .append(shrunk.runs())
                .append(" runs\n");
        out.append("   ")
                .append(failure.actionIndex() < 0 ? "at the teardown" : "at action " + (failure.actionIndex() + 1))
                .append(": ")
                .append(failure.getMessage())
                .append('\n');
        int at = found.first().actionIndex();
        if (at >= 0) {
            out.append("   unshrunk, it failed at action ")
                    .append(at + 1)
                    .append(": ")
                    .append(found.first().getMessage())
                    .append('\n');
            original.actions()
                    .get(at)
                    .toJava()
                    .lines()
                    .forEach(line -> out.append("     ").append(line).append('\n'));
        }
        Throwable cause = failure.getCause();
        for (int depth = 0; cause != null && depth < 4; depth++, cause = cause.getCause()) {
            out.append("   caused by ").append(cause).append('\n');
            if (cause.getCause() == null) {
                StackTraceElement[] frames = cause.getStackTrace();
                for (int i = 0; i < Math.min(6, frames.length); i++) {
                    out.append("       at ").append(frames[i]).append('\n');
                }
            }
        }
        out.append("   the shortest failing sequence:\n");
        shrunk.sequence()
                .toJava()
                .lines()
                .forEach(line -> out.append("     ").append(line).append('\n'));
        return out.toString();
    }
}
