package dev.graphrt.conformance.model;

import java.util.List;

/**
 * One call inside a captured step: a small program that runs once per warm-up pass (eagerly) and once more while
 * the stream records. Names are the sequence's buffers ({@code b3}, outputs {@code o4}, lazy outputs {@code l1}) or
 * the step's own temporaries ({@code t2}), which every pass allocates afresh. {@link #toJava} prints the call as the
 * step's user would write it, with {@code s} the capturing stream.
 */
sealed interface StepOp {

    /** The call as Java, on {@code stream} (the capture's {@code s}, or the other stream inside a fork). */
    String toJava(String stream);

    /**
     * The kit kernels a model applies: {@code KitKernels.ADD_ONE}, {@code MUL_TWO} and {@code DEPENDENT_ADD_ONE}
     * (add one, opted into programmatic dependent launch: on a backend that declares it, it may start before the
     * work ahead of it has finished and must still see all of it).
     */
    enum Kern {
        ADD_ONE("addOne", dev.graphrt.conformance.KitKernels::addOne),
        MUL_TWO("mulTwo", dev.graphrt.conformance.KitKernels::mulTwo),
        DEPENDENT_ADD_ONE("dependentAddOne", dev.graphrt.conformance.KitKernels::addOne);

        final String javaName;
        private final java.util.function.UnaryOperator<int[]> reference;

        Kern(String javaName, java.util.function.UnaryOperator<int[]> reference) {
            this.javaName = javaName;
            this.reference = reference;
        }

        /** KitKernels' Java reference function over {@code words}. */
        int[] apply(int[] words) {
            return reference.apply(words);
        }
    }

    /** {@code dst[i] = kernel(src[i])} for {@code i < n}. */
    record Launch(Kern kernel, String src, String dst, int n) implements StepOp {
        @Override
        public String toJava(String stream) {
            return launchJava(stream, kernel, src, dst, n);
        }
    }

    /** An allocation of the step, into a slot of {@code words} words. */
    sealed interface Allocation extends StepOp {
        String slot();

        int words();
    }

    /** A temporary: allocated by every pass, closed later in the same pass (by {@link Close}). */
    record Temp(String slot, int words) implements Allocation {
        @Override
        public String toJava(String stream) {
            return "Buffer " + slot + " = " + stream + ".allocate(" + words * 4L + ");";
        }
    }

    /** An output: allocated by every pass and kept open (PyTorch's {@code out = f(x)} inside a capture). */
    record Output(String slot, int words) implements Allocation {
        @Override
        public String toJava(String stream) {
            return "Buffer " + slot + " = keep(\"" + slot + "\", " + stream + ".allocate(" + words * 4L + "));";
        }
    }

    /** An output allocated on first use and reused by every later pass and step, as a GraphCache user would. */
    record Lazy(String slot, int words) implements Allocation {
        @Override
        public String toJava(String stream) {
            return "Buffer " + slot + " = outputs.computeIfAbsent(\"" + slot + "\", k -> " + stream + ".allocate("
                    + words * 4L + "));";
        }
    }

    /** Closes a temporary of this pass. */
    record Close(String slot) implements StepOp {
        @Override
        public String toJava(String stream) {
            return slot + ".close();";
        }
    }

    /** A host write inside the step: recorded where RECORDS_WRITES is declared, else refused at the end. */
    record Write(String dst, int words, int seed) implements StepOp {
        @Override
        public String toJava(String stream) {
            return stream + ".write(" + dst + ", KitKernels.pattern(" + words + ", " + seed + "));";
        }
    }

    /** A host read inside the step: runs in a warm-up (compared with the model), refused eagerly while recording. */
    record Read(String src) implements StepOp {
        @Override
        public String toJava(String stream) {
            return "try { assertModel(" + src + ", " + stream + ".readInts(" + src + ")); } "
                    + "catch (CaptureRejectedException whileRecording) { }";
        }
    }

    /** A device copy inside the step: recorded by a hardware graph, refused at the end by a software one. */
    record Copy(String src, String dst) implements StepOp {
        @Override
        public String toJava(String stream) {
            return stream + ".copy(" + src + ", " + dst + ");";
        }
    }

    /**
     * An all-reduce of a one-rank communicator of the capturing stream (a copy of {@code src}): run by a warm-up,
     * recorded by the recorded pass (a driver capture records the library's call, a software graph the backend's
     * launch), and replayed with the graph even after the communicator was closed.
     */
    record Reduce(String comm, String src, String dst) implements StepOp {
        @Override
        public String toJava(String stream) {
            return comm + ".allReduce(" + src + ", " + dst + ", ReduceOp.SUM, ElementType.INT32); // on " + stream;
        }
    }

    /**
     * Fork/join: the capturing stream records an event, the other stream waits for it and runs {@code branch}
     * (allocations and launches), then the capturing stream waits for an event of the other. Needs
     * MULTI_STREAM_CAPTURE while recording.
     */
    record Fork(String event, List<StepOp> branch) implements StepOp {
        public Fork {
            branch = List.copyOf(branch);
        }

        /** A one-line summary; {@link Step#toJava} prints the fork's calls, knowing both streams. */
        @Override
        public String toJava(String stream) {
            return "// " + stream + " forks " + event + " to the other stream: " + branch.size()
                    + " call(s), joined back";
        }
    }

    /**
     * The user's step gives up in the recorded pass (its own exception, thrown past the capture, which cancels): what
     * the pass allocated and did not close yet stays open to the user.
     */
    record GiveUp() implements StepOp {
        @Override
        public String toJava(String stream) {
            return "if (" + stream + ".captureState() == CaptureState.CAPTURE) { throw new GiveUp(); } // rethrown";
        }
    }

    /** A launch as Java. */
    static String launchJava(String stream, Kern kernel, String src, String dst, int n) {
        return stream + ".launch(" + kernel.javaName + ", LaunchDims.linear(" + n + ", BLOCK), KernelArgs.of(" + src
                + ", " + dst + ").info(" + n + "));";
    }

    /** A step: the ops of one pass, in order. */
    record Step(List<StepOp> ops) {
        public Step {
            ops = List.copyOf(ops);
        }

        /** The step as a lambda body over {@code s}, indented; {@code other} is the fork stream. */
        String toJava(String indent, String other) {
            StringBuilder out = new StringBuilder();
            for (StepOp op : ops) {
                if (op instanceof Fork fork) {
                    out.append(indent)
                            .append("StreamEvent ")
                            .append(fork.event())
                            .append(" = s.record();\n");
                    out.append(indent)
                            .append(other)
                            .append(".waitFor(")
                            .append(fork.event())
                            .append(");\n");
                    for (StepOp inner : fork.branch()) {
                        out.append(indent).append(inner.toJava(other)).append('\n');
                    }
                    out.append(indent).append("s.waitFor(").append(other).append(".record());\n");
                } else {
                    out.append(indent).append(op.toJava("s")).append('\n');
                }
            }
            return out.toString();
        }

        /** Whether any op (a fork's included) satisfies the test. */
        boolean any(java.util.function.Predicate<StepOp> test) {
            for (StepOp op : ops) {
                if (test.test(op) || op instanceof Fork fork && new Step(fork.branch()).any(test)) {
                    return true;
                }
            }
            return false;
        }
    }
}
