package dev.graphrt.backend.wgpu;

import dev.graphrt.api.KernelCompilationException;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The resource bindings a WGSL kernel declares, read from its text. The backend builds an explicit bind group
 * layout from them rather than WebGPU's automatic one, because an automatic layout leaves out declared bindings
 * the entry point never touches, and then the uniform argument layout of {@code docs/kernels.md} (buffer i at
 * binding i, info at binding n) could not be bound as one bind group.
 *
 * @param types binding number to {@code WGPUBufferBindingType}, in binding order
 */
record WgslBindings(Map<Integer, Integer> types) {
    private static final Pattern COMMENTS = Pattern.compile("//[^\\n]*|/\\*(?s:.*?)\\*/");
    /** A run of attributes followed by {@code var}, with the optional address-space template. */
    private static final Pattern DECLARATION =
            Pattern.compile("((?:@\\s*\\w+\\s*(?:\\([^)]*\\))?\\s*)+)var\\s*(?:<([^>]*)>)?\\s*(\\w+)\\s*:\\s*([^;=]+)");

    private static final Pattern ATTRIBUTE = Pattern.compile("@\\s*(group|binding)\\s*\\(\\s*(\\d+)\\s*\\)");

    static WgslBindings parse(String entryPoint, String wgsl) {
        String text = COMMENTS.matcher(wgsl).replaceAll(" ");
        Map<Integer, Integer> types = new TreeMap<>();
        Matcher m = DECLARATION.matcher(text);
        while (m.find()) {
            Integer group = null;
            Integer binding = null;
            Matcher a = ATTRIBUTE.matcher(m.group(1));
            while (a.find()) {
                int value = Integer.parseInt(a.group(2));
                if (a.group(1).equals("group")) {
                    group = value;
                } else {
                    binding = value;
                }
            }
            if (group == null && binding == null) {
                continue;
            }
            String name = m.group(3);
            if (group == null || binding == null) {
                throw error(entryPoint, "'" + name + "' needs both @group and @binding");
            }
            if (group != 0) {
                throw error(
                        entryPoint, "'" + name + "' is in @group(" + group + "); kernels bind everything in @group(0)");
            }
            int type = bufferType(entryPoint, name, m.group(2));
            if (types.put(binding, type) != null) {
                throw error(entryPoint, "@binding(" + binding + ") is declared twice");
            }
        }
        return new WgslBindings(Map.copyOf(types));
    }

    /** The declared binding numbers, ascending. */
    int[] numbers() {
        return types.keySet().stream().sorted().mapToInt(Integer::intValue).toArray();
    }

    private static int bufferType(String entryPoint, String name, String addressSpace) {
        String space = addressSpace == null ? "" : addressSpace.replaceAll("\\s+", "");
        return switch (space) {
            case "storage,read_write" -> WebGpuHeader.BUFFER_BINDING_STORAGE;
            case "storage", "storage,read" -> WebGpuHeader.BUFFER_BINDING_READ_ONLY_STORAGE;
            default ->
                throw error(
                        entryPoint,
                        "'" + name + "' is declared var<" + space + ">; kernel arguments are "
                                + "var<storage, read_write> (docs/kernels.md)");
        };
    }

    private static KernelCompilationException error(String entryPoint, String detail) {
        return new KernelCompilationException("WGSL kernel '" + entryPoint + "': unsupported binding: " + detail, "");
    }
}
