package dev.graphrt.conformance.model;

import dev.graphrt.conformance.model.StepOp.Kern;
import dev.graphrt.conformance.model.StepOp.Step;

/**
 * One action of a generated sequence: a public call, or a short fixed group of calls, outside every capture. Names
 * refer to the sequence's streams ({@code s0}, {@code s1}), buffers, graphs, pools and caches; an action whose
 * names do not exist (any more) when it runs is skipped, so a shrunk sequence stays runnable. {@link #toJava} prints
 * it as the user's call.
 */
sealed interface Action {

    /** The call as Java, one or more lines (without a trailing newline). */
    String toJava();

    /** The stream the action runs on, or null when it is not a stream call. */
    default String stream() {
        return null;
    }

    record Allocate(String stream, String buffer, int words) implements Action {
        @Override
        public String toJava() {
            return "Buffer " + buffer + " = " + stream + ".allocate(" + words * 4L + ");";
        }
    }

    record Upload(String stream, String buffer, int words, int seed) implements Action {
        @Override
        public String toJava() {
            return "Buffer " + buffer + " = " + stream + ".upload(KitKernels.pattern(" + words + ", " + seed + "));";
        }
    }

    record Write(String stream, String buffer, int words, int seed) implements Action {
        @Override
        public String toJava() {
            return stream + ".write(" + buffer + ", KitKernels.pattern(" + words + ", " + seed + "));";
        }
    }

    record Launch(String stream, Kern kernel, String src, String dst, int n) implements Action {
        @Override
        public String toJava() {
            return StepOp.launchJava(stream, kernel, src, dst, n);
        }
    }

    record Copy(String stream, String src, String dst) implements Action {
        @Override
        public String toJava() {
            return stream + ".copy(" + src + ", " + dst + ");";
        }
    }

    /** {@code to.waitFor(from.record())}, then the host awaits an event of {@code from}. */
    record Event(String stream, String other) implements Action {
        @Override
        public String toJava() {
            return other + ".waitFor(" + stream + ".record()); " + stream + ".record().await();";
        }
    }

    /** A capture with {@code warmups} warm-ups, alone or into {@code pool} (null: none). */
    record Capture(String stream, String graph, int warmups, String pool, Step step) implements Action {
        @Override
        public String toJava() {
            String options =
                    "CaptureOptions.defaults().warmups(" + warmups + ")" + (pool == null ? "" : ".pool(" + pool + ")");
            return "Graph " + graph + " = " + stream + ".capture(" + options + ", s -> {\n"
                    + step.toJava("    ", other(stream)) + "});";
        }
    }

    record OpenPool(String pool) implements Action {
        @Override
        public String toJava() {
            return "GraphPool " + pool + " = runtime.graphPool();";
        }
    }

    record OpenCache(String stream, String cache, int maxGraphs) implements Action {
        @Override
        public String toJava() {
            return "GraphCache<String> " + cache + " = runtime.graphCache(" + stream
                    + ", GraphCacheOptions.defaults().maxGraphs(" + maxGraphs + "));";
        }
    }

    /** {@code cache.run(key, step)}: a hit replays, a miss captures with the run as its one warm-up. */
    record RunCache(String stream, String cache, String key, Step step) implements Action {
        @Override
        public String toJava() {
            return cache + ".run(\"" + key + "\", s -> {\n" + step.toJava("    ", other(stream)) + "});";
        }
    }

    record Replay(String stream, String graph) implements Action {
        @Override
        public String toJava() {
            return graph + ".replay();";
        }
    }

    /**
     * A buffer the graph writes closed (the graph keeps it), a replay, the graph closed at once, then a few new buffers
     * of that size allocated on the graph's stream and written by {@code writer}, a stream not ordered after the replay
     * (then ordered back): the replay still in flight holds what it uses, so no new buffer receives that memory early
     * (DESIGN.md section 4, Retention).
     */
    record ReplayAndClose(
            String stream, String graph, String closeFirst, String writer, String buffer, int words, int seed)
            implements Action {
        /** New buffers made: enough that one would receive the freed memory if it were freed early. */
        static final int BUFFERS = 4;

        @Override
        public String toJava() {
            return (closeFirst == null ? "" : closeFirst + ".close(); ") + graph + ".replay(); " + graph + ".close(); "
                    + "for (int i = 0; i < " + BUFFERS + "; i++) { Buffer " + buffer + " = " + stream + ".allocate("
                    + words * 4L + "); " + writer + ".write(" + buffer + ", KitKernels.pattern(" + words + ", " + seed
                    + ")); }" + (writer.equals(stream) ? "" : " " + stream + ".waitFor(" + writer + ".record());");
        }
    }

    /** {@code graph.update(options, step)} on the graph's stream: applied when the shape is the same, else rejected. */
    record Update(String stream, String graph, int warmups, Step step) implements Action {
        @Override
        public String toJava() {
            return "UpdateResult r = " + graph + ".update(CaptureOptions.defaults().warmups(" + warmups + "), s -> {\n"
                    + step.toJava("    ", other(stream)) + "});";
        }
    }

    record Rebind(String stream, String graph, String from, String to) implements Action {
        @Override
        public String toJava() {
            return graph + ".rebind(" + from + ", " + to + ");";
        }
    }

    /**
     * Many allocate/close cycles with no synchronize between them: reservedBytes must stay bounded (DESIGN.md section
     * 4, Budget). Of one size; or ({@code inFlight}) of distinct sizes, each buffer closed while a launch still uses
     * it, where only the pool reserve bounds what the pools keep (a lean runtime's reserve is small).
     */
    record Churn(String stream, int cycles, long bytes, boolean inFlight) implements Action {
        /** Each in-flight cycle's size grows by this, so no two are alike. */
        static final long STRIDE = 4096;

        @Override
        public String toJava() {
            if (!inFlight) {
                return "for (int i = 0; i < " + cycles + "; i++) { " + stream + ".allocate(" + bytes + ").close(); } "
                        + "// reservedBytes stays bounded";
            }
            return "Buffer prev = " + stream + ".allocate(" + bytes + "); for (int i = 1; i < " + cycles + "; i++) { "
                    + "Buffer next = " + stream + ".allocate(" + bytes + " + " + STRIDE + " * i); " + stream
                    + ".launch(addOne, LaunchDims.linear(n, BLOCK), KernelArgs.of(prev, next).info(n)); prev.close(); "
                    + "prev = next; } prev.close(); // n = " + bytes / 4 + "; reservedBytes stays within the reserve";
        }
    }

    record Trim() implements Action {
        @Override
        public String toJava() {
            return "runtime.trim();";
        }
    }

    /** A communicator of one rank on {@code stream}: COLLECTIVES, refused with the fixed message without it. */
    record Join(String stream, String comm) implements Action {
        @Override
        public String toJava() {
            return "Communicator " + comm + " = runtime.collectives().join(runtime.collectives().newId(), 0, 1, "
                    + stream + ");";
        }
    }

    /**
     * {@code comm.allReduce(src, dst, SUM, INT32)} on the communicator's stream: one rank's all-reduce is a copy of
     * {@code src}; refused when {@code dst} is smaller or the communicator is closed.
     */
    record AllReduce(String stream, String comm, String src, String dst) implements Action {
        @Override
        public String toJava() {
            return comm + ".allReduce(" + src + ", " + dst + ", ReduceOp.SUM, ElementType.INT32);";
        }
    }

    /** What a {@link Close} closes. */
    enum Kind {
        BUFFER,
        GRAPH,
        POOL,
        CACHE,
        STREAM,
        COMMUNICATOR
    }

    record Close(Kind kind, String name) implements Action {
        @Override
        public String toJava() {
            return kind == Kind.BUFFER && name.startsWith("l")
                    ? "outputs.remove(\"" + name + "\").close();"
                    : name + ".close();";
        }
    }

    /** The other stream of the two. */
    static String other(String stream) {
        return "s0".equals(stream) ? "s1" : "s0";
    }
}
