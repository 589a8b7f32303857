package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.BackendConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk kernel cache through the shared compiler: what is compiled, what is loaded, what is never trusted. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class KernelImageCacheTest {
    private static final KernelSource KERNEL = KernelSource.named("scale")
            .cuda("extern \"C\" __global__ void scale(float* src, float* dst, const int* info) {}");
    private static final KernelSource OTHER = KernelSource.named("shift")
            .cuda("extern \"C\" __global__ void shift(float* src, float* dst, const int* info) {}");

    @TempDir
    Path dir;

    /** A toolchain whose image is its key and text; it records what it compiled and what it was asked to load. */
    static final class RecordingToolchain implements KernelToolchain {
        final String key;
        final List<String> compiled = new ArrayList<>();
        final List<String> loaded = new ArrayList<>();
        boolean refuseEverything;

        RecordingToolchain(String key) {
            this.key = key;
        }

        @Override
        public Dialect dialect() {
            return Dialect.CUDA_C;
        }

        @Override
        public String missingSourceMessage(String entryPoint) {
            return "no CUDA C";
        }

        @Override
        public String imageKey() {
            return key;
        }

        @Override
        public byte[] compile(String entryPoint, String text) {
            compiled.add(entryPoint);
            return (key + "|" + text).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public MemorySegment loadModule(String entryPoint, byte[] image) {
            String text = new String(image, StandardCharsets.UTF_8);
            loaded.add(text);
            if (refuseEverything || !text.startsWith(key + "|")) {
                throw new KernelCompilationException("the driver refused the image of " + entryPoint, "");
            }
            return MemorySegment.ofAddress(0x1000 + loaded.size());
        }

        @Override
        public MemorySegment function(MemorySegment module, String entryPoint) {
            return MemorySegment.ofAddress(0x2000);
        }

        @Override
        public int parameterCount(String entryPoint, MemorySegment function) {
            return 3;
        }

        @Override
        public void unloadModule(MemorySegment module) {}
    }

    private static final DriverContext CONTEXT = new DriverContext() {
        @Override
        public DriverNames names() {
            return new DriverNames("fake", "fake", HardwareGraphErrors.withNames(code -> "E" + code));
        }

        @Override
        public void makeCurrent() {}
    };

    /** A compiler as a new process would have it: empty module cache, the disk cache in {@code cacheDir}. */
    private static DriverKernelCompiler process(RecordingToolchain toolchain, Path cacheDir) {
        return new DriverKernelCompiler(CONTEXT, toolchain, KernelImageCache.in(cacheDir));
    }

    private List<Path> entries() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        }
    }

    @Test
    void a_second_process_loads_the_image_the_first_compiled_without_compiling() {
        RecordingToolchain first = new RecordingToolchain("nvrtc 13.0 compute_90");
        process(first, dir).compile(KERNEL);
        RecordingToolchain second = new RecordingToolchain("nvrtc 13.0 compute_90");
        process(second, dir).compile(KERNEL);

        assertThat(first.compiled).containsExactly("scale");
        assertThat(second.compiled).isEmpty();
        assertThat(second.loaded).containsExactly(first.loaded.get(0));
    }

    @Test
    void another_compiler_version_or_architecture_or_text_is_another_entry() throws IOException {
        process(new RecordingToolchain("nvrtc 13.0 compute_90"), dir).compile(KERNEL);
        RecordingToolchain newer = new RecordingToolchain("nvrtc 13.1 compute_90");
        process(newer, dir).compile(KERNEL);
        RecordingToolchain other = new RecordingToolchain("nvrtc 13.0 compute_90");
        process(other, dir).compile(OTHER);

        assertThat(newer.compiled).containsExactly("scale");
        assertThat(other.compiled).containsExactly("shift");
        assertThat(entries()).hasSize(3);
    }

    @Test
    void a_corrupt_entry_is_never_trusted_it_is_compiled_again_and_rewritten() throws IOException {
        process(new RecordingToolchain("k"), dir).compile(KERNEL);
        Path entry = entries().get(0);
        byte[] bytes = Files.readAllBytes(entry);
        bytes[bytes.length - 40] ^= 0x5a; // one bit pattern inside the image: its digest no longer matches
        Files.write(entry, bytes);

        RecordingToolchain next = new RecordingToolchain("k");
        process(next, dir).compile(KERNEL);

        assertThat(next.compiled).containsExactly("scale");
        assertThat(next.loaded)
                .containsExactly("k|" + KERNEL.text(Dialect.CUDA_C).orElseThrow());
        RecordingToolchain after = new RecordingToolchain("k");
        process(after, dir).compile(KERNEL);
        assertThat(after.compiled).as("the rewritten entry is whole again").isEmpty();
    }

    @Test
    void a_truncated_an_empty_or_a_foreign_file_is_compiled_again() throws IOException {
        process(new RecordingToolchain("k"), dir).compile(KERNEL);
        Path entry = entries().get(0);
        byte[] whole = Files.readAllBytes(entry);
        for (byte[] broken : List.of(
                new byte[0],
                Arrays.copyOf(whole, whole.length / 2),
                "not a kernel image at all".getBytes(StandardCharsets.UTF_8))) {
            Files.write(entry, broken);
            RecordingToolchain next = new RecordingToolchain("k");
            process(next, dir).compile(KERNEL);
            assertThat(next.compiled)
                    .as("after a file of %d bytes", broken.length)
                    .containsExactly("scale");
        }
    }

    @Test
    void an_entry_renamed_to_another_key_is_not_taken_for_it() throws IOException {
        process(new RecordingToolchain("k"), dir).compile(KERNEL);
        Path kernelEntry = entries().get(0);
        KernelImageCache.Entry otherEntry = KernelImageCache.in(dir)
                .entry("k", "shift", OTHER.text(Dialect.CUDA_C).orElseThrow());
        Files.copy(kernelEntry, otherEntry.file().orElseThrow());

        RecordingToolchain next = new RecordingToolchain("k");
        process(next, dir).compile(OTHER);

        assertThat(next.compiled).containsExactly("shift");
    }

    @Test
    void a_cached_image_the_driver_refuses_is_deleted_and_the_kernel_compiled_again() throws IOException {
        KernelImageCache.Entry entry = KernelImageCache.in(dir)
                .entry("k", "scale", KERNEL.text(Dialect.CUDA_C).orElseThrow());
        entry.write("an image of another driver".getBytes(StandardCharsets.UTF_8));

        RecordingToolchain next = new RecordingToolchain("k");
        process(next, dir).compile(KERNEL);

        assertThat(next.compiled).containsExactly("scale");
        assertThat(next.loaded).hasSize(2);
        assertThat(entry.read())
                .hasValueSatisfying(image ->
                        assertThat(new String(image, StandardCharsets.UTF_8)).startsWith("k|"));
    }

    @Test
    void an_image_that_did_not_load_is_not_stored() throws IOException {
        RecordingToolchain refusing = new RecordingToolchain("k");
        refusing.refuseEverything = true;

        assertThatThrownBy(() -> process(refusing, dir).compile(KERNEL)).isInstanceOf(KernelCompilationException.class);

        assertThat(entries()).isEmpty();
    }

    @Test
    void a_cache_that_cannot_be_written_never_fails_a_compilation() throws IOException {
        Path blocked = dir.resolve("a-file-not-a-folder");
        Files.writeString(blocked, "x");
        RecordingToolchain toolchain = new RecordingToolchain("k");

        process(toolchain, blocked.resolve("cuda")).compile(KERNEL);
        process(toolchain, blocked.resolve("cuda")).compile(KERNEL);

        assertThat(toolchain.compiled).containsExactly("scale", "scale");
    }

    @Test
    void the_option_chooses_the_folder_and_off_turns_the_cache_off() {
        assertThat(KernelImageCache.configured(
                                new BackendConfig(0, Map.of(KernelImageCache.OPTION, dir.toString())), "cuda")
                        .directory())
                .contains(dir.resolve("cuda"));
        assertThat(KernelImageCache.configured(new BackendConfig(0, Map.of(KernelImageCache.OPTION, "off")), "cuda")
                        .directory())
                .isEmpty();
        assertThat(KernelImageCache.configured(BackendConfig.defaults(), "hip").directory())
                .hasValueSatisfying(path -> assertThat(path.toString()).endsWith("graphrt/hip"));
    }

    @Test
    void with_the_cache_off_every_process_compiles_and_nothing_is_written() throws IOException {
        RecordingToolchain toolchain = new RecordingToolchain("k");
        new DriverKernelCompiler(CONTEXT, toolchain, KernelImageCache.off()).compile(KERNEL);
        new DriverKernelCompiler(CONTEXT, toolchain, KernelImageCache.off()).compile(KERNEL);

        assertThat(toolchain.compiled).containsExactly("scale", "scale");
        assertThat(entries()).isEmpty();
    }
}
