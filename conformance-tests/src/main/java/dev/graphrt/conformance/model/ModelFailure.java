package dev.graphrt.conformance.model;

/**
 * The backend disagreed with the model. {@link #kind} classifies the disagreement (what was checked and, for a
 * refusal, the exception type) without naming buffers or positions, so that shrinking keeps a candidate only when it
 * fails the same way.
 */
final class ModelFailure extends AssertionError {
    private String kind;
    private int actionIndex = -1;

    ModelFailure(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    ModelFailure(String kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** A call the model predicted to succeed threw. */
    static ModelFailure unpredictedRefusal(String call, Throwable thrown) {
        return new ModelFailure(
                "unpredicted " + thrown.getClass().getSimpleName() + " from " + shape(call),
                call + " threw " + thrown + " where the model predicts success",
                thrown);
    }

    /** A call the model predicted to be refused succeeded. */
    static ModelFailure unpredictedSuccess(String call, String why) {
        return new ModelFailure(
                "unpredicted success of " + shape(call),
                call + " succeeded where the model predicts " + "a refusal: " + why);
    }

    /** A predicted refusal came as the wrong exception. */
    static ModelFailure wrongRefusal(String call, Class<?> expected, Throwable thrown) {
        return new ModelFailure(
                "wrong refusal " + thrown.getClass().getSimpleName() + " from " + shape(call),
                call + " threw " + thrown + " where the model predicts " + expected.getSimpleName(),
                thrown);
    }

    /** The call without the sequence's names and numbers: what a kind may say. */
    private static String shape(String call) {
        return call.replaceAll("\\b[bgpcotlfsk]\\d+('\\d+)?(w\\d+)?\\b", "_").replaceAll("\\d+", "#");
    }

    /** Marks a failure found on a runtime in checked mode: the kind says so. */
    ModelFailure inCheckedMode(boolean checked) {
        if (checked && !kind.endsWith(" in checked mode")) {
            kind += " in checked mode";
        }
        return this;
    }

    /** Checks that {@code thrown} is the predicted refusal (null: the call succeeded). */
    static void expectRefusal(String call, Class<? extends Throwable> expected, Throwable thrown, String why) {
        if (thrown instanceof ModelFailure failure) {
            throw failure;
        }
        if (thrown == null) {
            throw unpredictedSuccess(call, why);
        }
        if (!expected.isInstance(thrown)) {
            throw wrongRefusal(call, expected, thrown);
        }
    }

    String kind() {
        return kind;
    }

    /** The index of the action after (or during) which it was found, or -1 for the teardown. */
    int actionIndex() {
        return actionIndex;
    }

    ModelFailure at(int index) {
        if (actionIndex < 0) {
            actionIndex = index;
        }
        return this;
    }
}
