package dev.graphrt.backend.wgpu;

import dev.graphrt.api.BlockShape;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code @workgroup_size} of a WGSL entry point, read from its text: a WebGPU dispatch takes only the number of
 * workgroups, so the core refuses a launch whose block differs from it (docs/decisions.md, "Launch limits").
 * Sizes written as integer literals are read; one written as an expression or an override constant is not known
 * here, and the kernel's launches are then not checked (empty).
 */
final class WgslWorkgroupSize {
    private static final Pattern COMMENTS = Pattern.compile("//[^\\n]*|/\\*(?s:.*?)\\*/");
    private static final Pattern WORKGROUP_SIZE = Pattern.compile("@\\s*workgroup_size\\s*\\(([^)]*)\\)");
    private static final Pattern LITERAL = Pattern.compile("(\\d+)[iu]?");

    private WgslWorkgroupSize() {}

    /** The block {@code entryPoint} declares, or empty when it declares none this reading can evaluate. */
    static Optional<BlockShape> of(String entryPoint, String wgsl) {
        String text = COMMENTS.matcher(wgsl).replaceAll(" ");
        Matcher function = Pattern.compile("\\bfn\\s+" + Pattern.quote(entryPoint) + "\\s*\\(")
                .matcher(text);
        if (!function.find()) {
            return Optional.empty();
        }
        // The entry point's attributes are what lies between the end of the previous declaration and its fn.
        String before = text.substring(0, function.start());
        int start = Math.max(before.lastIndexOf('}'), before.lastIndexOf(';')) + 1;
        Matcher size = WORKGROUP_SIZE.matcher(before.substring(start));
        if (!size.find()) {
            return Optional.empty();
        }
        String[] parts = size.group(1).split(",");
        int[] xyz = {1, 1, 1};
        int count = 0;
        for (String part : parts) {
            String trimmed = part.strip();
            if (trimmed.isEmpty()) {
                continue; // a trailing comma
            }
            Matcher literal = LITERAL.matcher(trimmed);
            if (count == 3 || !literal.matches()) {
                return Optional.empty();
            }
            xyz[count++] = Integer.parseInt(literal.group(1));
        }
        if (count == 0 || xyz[0] <= 0 || xyz[1] <= 0 || xyz[2] <= 0) {
            return Optional.empty();
        }
        return Optional.of(new BlockShape(xyz[0], xyz[1], xyz[2]));
    }
}
