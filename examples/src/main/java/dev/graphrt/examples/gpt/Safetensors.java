package dev.graphrt.examples.gpt;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a safetensors file, Hugging Face's format for weights: an 8-byte little-endian header size, a JSON header
 * naming each tensor's dtype, shape and byte range in the data that follows, then the data. Tensors come back as
 * floats; F32, F16 and BF16 are read (little-endian, as the format defines). Every check names the file and the
 * tensor, so a truncated download or a file of another model says what is wrong with it.
 */
public final class Safetensors {
    /** A header larger than this is refused: real ones are kilobytes, and a wrong size would allocate gigabytes. */
    static final long MAX_HEADER_BYTES = 100L << 20;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong SIZE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Safetensors() {}

    /** One tensor: its name, dtype as the file spells it, shape, and values in row-major order. */
    public record Tensor(String name, String dtype, long[] shape, float[] values) {
        /** The shape as text, {@code [768, 2304]}. */
        public String shapeText() {
            return java.util.Arrays.toString(shape);
        }
    }

    /** Every tensor of {@code file}, in header order. */
    public static Map<String, Tensor> read(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                Arena arena = Arena.ofConfined()) {
            long size = channel.size();
            if (size < 8) {
                throw new IOException(file + ": " + size + " bytes, too short for a safetensors file");
            }
            MemorySegment all = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            long headerBytes = all.get(SIZE, 0);
            if (headerBytes <= 0 || headerBytes > MAX_HEADER_BYTES || headerBytes > size - 8) {
                throw new IOException(file + ": its header size " + headerBytes + " does not fit the file of " + size
                        + " bytes (at most " + MAX_HEADER_BYTES + "): not a safetensors file, or truncated");
            }
            String json =
                    new String(all.asSlice(8, headerBytes).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            Object parsed = new Json(json, file).value();
            if (!(parsed instanceof Map<?, ?> header)) {
                throw new IOException(file + ": its header is not a JSON object");
            }
            MemorySegment data = all.asSlice(8 + headerBytes);
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            for (Map.Entry<?, ?> entry : header.entrySet()) {
                String name = (String) entry.getKey();
                if (name.equals("__metadata__")) {
                    continue;
                }
                tensors.put(name, tensor(file, name, entry.getValue(), data));
            }
            return tensors;
        }
    }

    private static Tensor tensor(Path file, String name, Object description, MemorySegment data) throws IOException {
        String where = file + ": tensor '" + name + "'";
        if (!(description instanceof Map<?, ?> fields)
                || !(fields.get("dtype") instanceof String dtype)
                || !(fields.get("shape") instanceof List<?> dims)
                || !(fields.get("data_offsets") instanceof List<?> offsets)
                || offsets.size() != 2) {
            throw new IOException(where + " lacks its dtype, shape or data_offsets");
        }
        long[] shape = new long[dims.size()];
        long elements = 1;
        for (int i = 0; i < shape.length; i++) {
            if (!(dims.get(i) instanceof Long dim) || dim < 0) {
                throw new IOException(where + " has a bad shape " + dims);
            }
            shape[i] = dim;
            elements = Math.multiplyExact(elements, dim);
        }
        int width = switch (dtype) {
            case "F32" -> 4;
            case "F16", "BF16" -> 2;
            default -> throw new IOException(where + " is " + dtype + "; only F32, F16 and BF16 are read");
        };
        if (!(offsets.get(0) instanceof Long begin) || !(offsets.get(1) instanceof Long end)) {
            throw new IOException(where + " has bad data_offsets " + offsets);
        }
        if (begin < 0 || end < begin || end > data.byteSize() || end - begin != elements * width) {
            throw new IOException(where + " spans bytes " + begin + " to " + end + " of " + data.byteSize()
                    + ", but " + java.util.Arrays.toString(shape) + " of " + dtype + " needs " + elements * width
                    + ": the file is truncated or its header is wrong");
        }
        if (elements > Integer.MAX_VALUE - 8) {
            throw new IOException(where + " has " + elements + " elements, more than a Java array holds");
        }
        MemorySegment bytes = data.asSlice(begin, end - begin);
        float[] values = new float[(int) elements];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (dtype) {
                case "F32" -> bytes.getAtIndex(F32, i);
                case "F16" -> Float.float16ToFloat(bytes.getAtIndex(F16, i));
                default -> Float.intBitsToFloat((bytes.getAtIndex(F16, i) & 0xFFFF) << 16); // BF16
            };
        }
        return new Tensor(name, dtype, shape, values);
    }

    /** The JSON a header holds: objects, arrays, strings, integers (and, read but unused, other numbers and literals). */
    private static final class Json {
        private final String text;
        private final Path file;
        private int at;

        Json(String text, Path file) {
            this.text = text;
            this.file = file;
        }

        Object value() throws IOException {
            skipSpace();
            if (at >= text.length()) {
                throw error("the header ends early");
            }
            char c = text.charAt(at);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't', 'f', 'n' -> literal();
                default -> number();
            };
        }

        private Map<String, Object> object() throws IOException {
            Map<String, Object> map = new LinkedHashMap<>();
            at++; // {
            skipSpace();
            if (peek() == '}') {
                at++;
                return map;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') {
                    throw error("a key must be a string");
                }
                String key = string();
                skipSpace();
                expect(':');
                if (map.put(key, value()) != null) {
                    throw error("the key '" + key + "' appears twice");
                }
                skipSpace();
                if (peek() == ',') {
                    at++;
                } else {
                    expect('}');
                    return map;
                }
            }
        }

        private List<Object> array() throws IOException {
            List<Object> list = new ArrayList<>();
            at++; // [
            skipSpace();
            if (peek() == ']') {
                at++;
                return list;
            }
            while (true) {
                list.add(value());
                skipSpace();
                if (peek() == ',') {
                    at++;
                } else {
                    expect(']');
                    return list;
                }
            }
        }

        private String string() throws IOException {
            StringBuilder out = new StringBuilder();
            at++; // "
            while (true) {
                if (at >= text.length()) {
                    throw error("a string does not end");
                }
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (at >= text.length()) {
                    throw error("a string does not end");
                }
                char escaped = text.charAt(at++);
                switch (escaped) {
                    case '"', '\\', '/' -> out.append(escaped);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            throw error("a \\u escape is cut short");
                        }
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> throw error("an unknown escape \\" + escaped);
                }
            }
        }

        private Object number() throws IOException {
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            String digits = text.substring(start, at);
            try {
                if (digits.matches("-?\\d+")) { // not a ?: of the two, which would widen every integer to double
                    return Long.parseLong(digits);
                }
                return Double.parseDouble(digits);
            } catch (NumberFormatException e) {
                throw error("'" + digits + "' is not a number");
            }
        }

        private Object literal() throws IOException {
            for (String word : new String[] {"true", "false", "null"}) {
                if (text.startsWith(word, at)) {
                    at += word.length();
                    return word;
                }
            }
            throw error("an unknown word");
        }

        private char peek() throws IOException {
            if (at >= text.length()) {
                throw error("the header ends early");
            }
            return text.charAt(at);
        }

        private void expect(char c) throws IOException {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        private void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private IOException error(String what) {
            return new IOException(file + ": its JSON header is malformed at character " + at + ": " + what);
        }
    }
}
