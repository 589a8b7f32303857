package dev.graphrt.conformance.model;

import dev.graphrt.conformance.model.StepOp.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Delta debugging over a failing sequence: drops chunks of actions (halves, quarters, ... single actions), then single
 * operations inside the steps, keeping a candidate only when it still fails the same way ({@link ModelFailure#kind}).
 * Every candidate runs on a fresh runtime. Bounded by a number of runs, so a flaky failure cannot make it spin.
 */
final class Shrinker {
    private final Function<Sequence, ModelFailure> runner;
    private final int maxRuns;
    private int runs;

    Shrinker(Function<Sequence, ModelFailure> runner, int maxRuns) {
        this.runner = runner;
        this.maxRuns = maxRuns;
    }

    /** What shrinking found: the shortest sequence that still fails, and its failure. */
    record Shrunk(Sequence sequence, ModelFailure failure, int runs) {}

    Shrunk shrink(Sequence failing, ModelFailure failure) {
        Sequence best = cut(failing, failure);
        ModelFailure bestFailure = failure;
        if (best.checked()) { // the same failure without checked mode is simpler (its kind only loses the suffix)
            Sequence plain = new Sequence(best.seed(), false, best.lean(), best.twoStreams(), best.actions());
            ModelFailure again = attempt(plain, failure.kind().replace(" in checked mode", ""));
            if (again != null) {
                best = cut(plain, again);
                bestFailure = again;
            }
        }
        if (best.lean()) { // so is the default runtime, where the failure shows there too
            Sequence plain = new Sequence(best.seed(), best.checked(), false, best.twoStreams(), best.actions());
            ModelFailure again = attempt(plain, bestFailure.kind());
            if (again != null) {
                best = cut(plain, again);
                bestFailure = again;
            }
        }
        if (best.twoStreams()) {
            Sequence single = new Sequence(best.seed(), best.checked(), best.lean(), false, best.actions());
            ModelFailure again = attempt(single, bestFailure.kind());
            if (again != null) {
                best = cut(single, again);
                bestFailure = again;
            }
        }
        String kind = bestFailure.kind();
        boolean progress = true;
        while (progress && runs < maxRuns) {
            progress = false;
            for (int chunk = Math.max(1, best.actions().size() / 2); chunk >= 1 && runs < maxRuns; chunk /= 2) {
                for (int start = 0; start < best.actions().size() && runs < maxRuns; ) {
                    List<Action> fewer = new ArrayList<>(best.actions());
                    fewer.subList(start, Math.min(start + chunk, fewer.size())).clear();
                    ModelFailure again = attempt(best.with(fewer), kind);
                    if (again != null) {
                        best = cut(best.with(fewer), again);
                        bestFailure = again;
                        progress = true;
                    } else {
                        start += chunk;
                    }
                }
            }
            for (int i = 0; i < best.actions().size() && runs < maxRuns; i++) {
                for (Action smaller : smallerSteps(best.actions().get(i))) {
                    List<Action> candidate = new ArrayList<>(best.actions());
                    candidate.set(i, smaller);
                    ModelFailure again = attempt(best.with(candidate), kind);
                    if (again != null) {
                        best = cut(best.with(candidate), again);
                        bestFailure = again;
                        progress = true;
                        break;
                    }
                }
            }
        }
        return new Shrunk(best, bestFailure, runs);
    }

    /** The sequence up to the action that failed: what follows cannot matter. */
    private static Sequence cut(Sequence sequence, ModelFailure failure) {
        int last = failure.actionIndex();
        return last < 0 || last + 1 >= sequence.actions().size()
                ? sequence
                : sequence.with(sequence.actions().subList(0, last + 1));
    }

    private ModelFailure attempt(Sequence candidate, String kind) {
        runs++;
        ModelFailure failure = runner.apply(candidate);
        return failure != null && failure.kind().equals(kind) ? failure : null;
    }

    /**
     * The step with one op left out, for each op, a fork's branch included; never the close of a temporary the step
     * allocates: left open it would be an output, which fails another way rather than in a smaller one.
     */
    private static List<Step> smaller(Step step) {
        List<Step> smaller = new ArrayList<>();
        for (int i = 0; i < step.ops().size(); i++) {
            StepOp op = step.ops().get(i);
            if (!closesATemporary(step, op)) {
                List<StepOp> ops = new ArrayList<>(step.ops());
                ops.remove(i);
                smaller.add(new Step(ops));
            }
            if (op instanceof StepOp.Fork fork) {
                for (int j = 0; j < fork.branch().size(); j++) {
                    if (!closesATemporary(step, fork.branch().get(j))) {
                        List<StepOp> branch = new ArrayList<>(fork.branch());
                        branch.remove(j);
                        List<StepOp> ops = new ArrayList<>(step.ops());
                        ops.set(i, new StepOp.Fork(fork.event(), branch));
                        smaller.add(new Step(ops));
                    }
                }
            }
        }
        return smaller;
    }

    private static boolean closesATemporary(Step step, StepOp op) {
        return op instanceof StepOp.Close close
                && step.any(other ->
                        other instanceof StepOp.Temp temp && temp.slot().equals(close.slot()));
    }

    /** The action with one op of its step left out, for each op (none for actions without a step). */
    private static List<Action> smallerSteps(Action action) {
        Step step = switch (action) {
            case Action.Capture c -> c.step();
            case Action.RunCache r -> r.step();
            case Action.Update u -> u.step();
            default -> null;
        };
        List<Action> smaller = new ArrayList<>();
        if (step == null) {
            return smaller;
        }
        for (Step fewer : smaller(step)) {
            smaller.add(
                    switch (action) {
                        case Action.Capture c ->
                            new Action.Capture(c.stream(), c.graph(), c.warmups(), c.pool(), fewer);
                        case Action.RunCache r -> new Action.RunCache(r.stream(), r.cache(), r.key(), fewer);
                        case Action.Update u -> new Action.Update(u.stream(), u.graph(), u.warmups(), fewer);
                        default -> throw new IllegalStateException();
                    });
        }
        if (action instanceof Action.Capture c && c.warmups() > 1) {
            smaller.add(new Action.Capture(c.stream(), c.graph(), 1, c.pool(), step));
        }
        return smaller;
    }
}
