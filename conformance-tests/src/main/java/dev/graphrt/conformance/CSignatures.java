package dev.graphrt.conformance;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads C prototypes out of a vendor header and says which FFM descriptor each calls for on x86-64 and AArch64
 * Linux, so a backend's test can check every downcall it binds against the header that declares it: a wrong
 * descriptor corrupts the JVM, and a header is the only authority on it.
 *
 * <p>A backend names its header's types: opaque handles (pointers), 32-bit integers (including enums) and 64-bit
 * integers; anything else is refused, so a new type cannot slip through mapped by guess. Any pointer is an
 * {@code ADDRESS}. Calling-convention words (e.g. {@code CUDAAPI}) are ignored.
 *
 * @param handles  type names passed as pointers ({@code CUstream}, {@code hipStream_t}, ...)
 * @param ints     type names passed as 32-bit integers ({@code int}, {@code CUresult}, enums, ...)
 * @param longs    type names passed as 64-bit integers ({@code size_t}, {@code CUdeviceptr}, ...)
 * @param ignored  words that are not types ({@code CUDAAPI}, {@code __CUDA_DEPRECATED})
 */
public record CSignatures(Set<String> handles, Set<String> ints, Set<String> longs, Set<String> ignored) {
    public CSignatures {
        handles = Set.copyOf(handles);
        ints = Set.copyOf(ints);
        longs = Set.copyOf(longs);
        ignored = Set.copyOf(ignored);
    }

    /**
     * The first declaration of {@code name} that starts a line (not a doc comment) with a return type matching
     * {@code returns} (a regular expression), up to its semicolon, with white space folded.
     */
    public static Optional<String> prototype(String header, String returns, String name) {
        // parameters may hold one level of parentheses: HIP's default arguments, "flags __dparm(0)"
        Matcher m = Pattern.compile(
                        "^[ \\t]*(?:" + returns + ")\\s+" + Pattern.quote(name)
                                + "\\s*\\(((?:[^()]|\\([^()]*\\))*)\\)\\s*;",
                        Pattern.MULTILINE)
                .matcher(header);
        return m.find() ? Optional.of(m.group().strip().replaceAll("\\s+", " ")) : Optional.empty();
    }

    /**
     * The API name that a {@code #define} maps to the exported {@code symbol} ({@code #define cuMemAlloc
     * cuMemAlloc_v2}, also through a per-thread-stream macro such as {@code __CUDA_API_PTSZ(...)}), if any.
     */
    public static Optional<String> definedAs(String header, String symbol) {
        String define = "^\\s*#\\s*define\\s+(\\w+)\\s+(?:\\w+\\(\\s*)?" + Pattern.quote(symbol) + "\\s*\\)?\\s*$";
        Matcher m = Pattern.compile(define, Pattern.MULTILINE).matcher(header);
        while (m.find()) {
            if (!m.group(1).equals(symbol)) {
                return Optional.of(m.group(1));
            }
        }
        return Optional.empty();
    }

    /** The FFM descriptor that the prototype of {@code name} calls for. */
    public FunctionDescriptor descriptor(String prototype, String name) {
        String returns = withoutIgnored(prototype.substring(
                0, prototype.indexOf(name + "(") >= 0 ? prototype.indexOf(name + "(") : prototype.indexOf(name)));
        String parameters = prototype
                .substring(prototype.indexOf('(') + 1, prototype.lastIndexOf(')'))
                .strip();
        List<MemoryLayout> arguments = new ArrayList<>();
        if (!parameters.isEmpty() && !parameters.equals("void")) {
            for (String parameter : parameters.split(",")) {
                String declaration = parameter
                        .replaceAll("=.*$", "") // a C++ default argument
                        .replaceAll("__dparm\\([^)]*\\)", "")
                        .strip(); // HIP's macro for one
                String type = declaration.contains("*")
                        ? declaration.substring(0, declaration.lastIndexOf('*') + 1)
                        : declaration.substring(0, declaration.lastIndexOf(' ')).strip();
                arguments.add(layout(type));
            }
        }
        return FunctionDescriptor.of(layout(returns), arguments.toArray(MemoryLayout[]::new));
    }

    private String withoutIgnored(String text) {
        StringBuilder kept = new StringBuilder();
        for (String word : text.strip().split("\\s+")) {
            if (!ignored.contains(word)) {
                kept.append(kept.isEmpty() ? "" : " ").append(word);
            }
        }
        return kept.toString();
    }

    private MemoryLayout layout(String cType) {
        String type = cType.replace("const ", "").strip();
        if (type.endsWith("*") || handles.contains(type)) {
            return ADDRESS;
        }
        if (ints.contains(type)) {
            return JAVA_INT;
        }
        if (longs.contains(type)) {
            return JAVA_LONG;
        }
        throw new AssertionError("no FFM mapping for the C type '" + cType + "'");
    }
}
