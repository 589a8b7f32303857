package dev.graphrt.driver;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the parameters of a kernel's {@code extern "C" __global__} declaration in its CUDA C / HIP C text, for
 * drivers that cannot say themselves (ROCm 5.2 has no parameter query, CUDA has {@code cuFuncGetParamInfo} only
 * from 12.4). The count lets the core refuse a launch with too few or too many buffers at the call instead of
 * letting the kernel read out of bounds on the device, which is a sticky error that loses the context.
 *
 * <p>It reads the first declaration of the entry point whose statement holds {@code __global__} (attributes such
 * as {@code __launch_bounds__(256)} may stand between), after removing comments and preprocessor lines, and counts
 * the top-level commas of its parameter list; {@code ()} and {@code (void)} are none. It does not expand macros:
 * a kernel declared through one is not found, and its launches stay unchecked ({@link OptionalInt#empty()}), never
 * refused by guess.
 */
public final class CKernelSignature {
    private static final Pattern COMMENTS = Pattern.compile("//[^\\n]*|/\\*(?s:.*?)\\*/");
    private static final Pattern PREPROCESSOR = Pattern.compile("(?m)^[ \\t]*#.*(?:\\\\\\n.*)*$");

    private CKernelSignature() {}

    /** The parameter count of {@code entryPoint}'s {@code __global__} declaration in {@code source}, if found. */
    public static OptionalInt parameterCount(String source, String entryPoint) {
        String text =
                PREPROCESSOR.matcher(COMMENTS.matcher(source).replaceAll(" ")).replaceAll(" ");
        Matcher name =
                Pattern.compile("\\b" + Pattern.quote(entryPoint) + "\\s*\\(").matcher(text);
        while (name.find()) {
            if (statementBefore(text, name.start()).matches("(?s).*\\b__global__\\b.*")) {
                return count(text, name.end());
            }
        }
        return OptionalInt.empty();
    }

    /** The text from the end of the previous statement or block boundary up to {@code end}. */
    private static String statementBefore(String text, int end) {
        int start = end;
        while (start > 0 && ";{}".indexOf(text.charAt(start - 1)) < 0) {
            start--;
        }
        return text.substring(start, end);
    }

    /** Top-level parameters from just after the opening parenthesis at {@code open - 1} to its match. */
    private static OptionalInt count(String text, int open) {
        int depth = 0;
        int commas = 0;
        StringBuilder list = new StringBuilder();
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '(', '<', '[' -> depth++;
                case ')', '>', ']' -> {
                    if (c == ')' && depth == 0) {
                        String params = list.toString().strip();
                        boolean none = params.isEmpty() || params.equals("void");
                        return OptionalInt.of(none ? 0 : commas + 1);
                    }
                    depth = Math.max(0, depth - 1);
                }
                case ',' -> {
                    if (depth == 0) {
                        commas++;
                    }
                }
                default -> {}
            }
            list.append(c);
        }
        return OptionalInt.empty(); // unbalanced: not a declaration we can read
    }
}
