package dev.graphrt.conformance.model;

import java.util.List;

/**
 * A generated sequence: its seed, whether its runtime is opened in checked mode, whether lean (a small pool reserve
 * and no info cache outside captures: {@link World#LEAN_PROPERTIES}), whether it opens a second stream, and its
 * actions.
 */
record Sequence(long seed, boolean checked, boolean lean, boolean twoStreams, List<Action> actions) {
    Sequence {
        actions = List.copyOf(actions);
    }

    Sequence with(List<Action> fewer) {
        return new Sequence(seed, checked, lean, twoStreams, fewer);
    }

    /**
     * The sequence as Java, one call per line. Work on {@code s1} is ordered after {@code s0}'s and back (an event
     * each way), so that every read through {@code s0} sees it: those two waits are printed around each such line.
     */
    String toJava() {
        StringBuilder out = new StringBuilder();
        out.append("// seed ")
                .append(seed)
                .append(checked ? ", checked mode (-Dgraphrt.checked=true)" : "")
                .append(
                        lean
                                ? ", a lean runtime ("
                                        + World.LEAN_PROPERTIES.entrySet().stream()
                                                .map(e -> "-D" + e.getKey() + "=" + e.getValue())
                                                .collect(java.util.stream.Collectors.joining(" "))
                                        + ")"
                                : "")
                .append('\n');
        out.append("// keep(name, b) keeps a step's output in the user's map (outputs.computeIfAbsent a lazy one); ")
                .append("a name o.. or l.. outside its step is the buffer kept last under it.\n// After every line: ")
                .append("every open buffer is read back and compared with the model, and memoryStats() checked.\n")
                .append("// A refused capture leaves what its recorded pass allocated and kept open to the user, who ")
                .append("writes each (KitKernels.pattern(words, " + StepRun.LEFTOVER_SEED + ")).\n");
        out.append(
                        "Kernel addOne = runtime.compile(KitKernels.ADD_ONE), mulTwo = runtime.compile(KitKernels.MUL_TWO), ")
                .append("dependentAddOne = runtime.compile(KitKernels.DEPENDENT_ADD_ONE);\n");
        out.append("GpuStream s0 = runtime.openStream();\n");
        if (twoStreams) {
            out.append("GpuStream s1 = runtime.openStream();\n");
        }
        out.append("Map<String, Buffer> outputs = new HashMap<>();\n");
        boolean s0Open = true;
        for (Action action : actions) {
            boolean joined = s0Open
                    && "s1".equals(action.stream())
                    && !(action instanceof Action.Event)
                    && !(action instanceof Action.OpenCache);
            s0Open &= !action.equals(new Action.Close(Action.Kind.STREAM, "s0"));
            if (joined) {
                out.append("s1.waitFor(s0.record()); ");
            }
            out.append(action.toJava());
            if (joined) {
                out.append(" s0.waitFor(s1.record());");
            }
            out.append('\n');
        }
        out.append("// then: close every cache, graph, pool and buffer, synchronize, check nothing is pinned or ")
                .append("retained")
                .append(lean ? " or in use" : "")
                .append("; close the streams and the runtime, check nothing is reserved\n");
        return out.toString();
    }
}
