package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.conformance.CSignatures;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Every downcall descriptor against the C prototype that declares it: a wrong handle crashes the JVM, so the
 * bindings are checked against Debian's ROCm 5.2.3 headers ({@code libamdhip64-dev}) wherever they are
 * installed, and the two symbols 5.2 lacks against ROCm 6.2's prototypes, quoted here.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HipSignaturesTest {
    private static final Path RUNTIME_HEADER = Path.of("/usr/include/hip/hip_runtime_api.h");
    private static final Path HIPRTC_HEADER = Path.of("/usr/include/hip/hiprtc.h");
    /** ROCm 6.2.0 include/hip/hip_runtime_api.h: the optional symbols Debian's 5.2 header does not declare. */
    private static final Map<String, String> NEWER_PROTOTYPES = Map.of(
            "hipGraphUpload", "hipError_t hipGraphUpload(hipGraphExec_t graphExec, hipStream_t stream);",
            "hipGraphDebugDotPrint",
                    "hipError_t hipGraphDebugDotPrint(hipGraph_t graph, const char* path, unsigned int flags);");

    private static final Set<String> HANDLES = Set.of(
            "hipStream_t",
            "hipGraph_t",
            "hipGraphExec_t",
            "hipGraphNode_t",
            "hipModule_t",
            "hipFunction_t",
            "hipEvent_t",
            "hipDeviceptr_t",
            "hiprtcProgram");
    private static final Set<String> INTS = Set.of(
            "int",
            "unsigned int",
            "unsigned",
            "hipDevice_t",
            "hipError_t",
            "hipStreamCaptureMode",
            "hipDeviceAttribute_t",
            "hiprtcResult");
    private static final Set<String> LONGS = Set.of("size_t", "unsigned long long");
    private static final CSignatures TYPES = new CSignatures(HANDLES, INTS, LONGS, Set.of());

    @Test
    void every_runtime_binding_matches_its_prototype_in_hip_runtime_api_h() throws IOException {
        assumeTrue(
                Files.exists(RUNTIME_HEADER),
                "hip_runtime_api.h is not installed here (apt-get install libamdhip64-dev)");
        String header = Files.readString(RUNTIME_HEADER);
        List<String> checked = new ArrayList<>();
        for (HipNative.Symbol symbol : HipNative.Symbol.values()) {
            String prototype = prototype(header, symbol.name()).orElseGet(() -> NEWER_PROTOTYPES.get(symbol.name()));
            assertThat(prototype).as("a declaration of " + symbol.name()).isNotNull();
            assertThat(symbol.descriptor()).as(prototype).isEqualTo(descriptor(prototype, symbol.name()));
            checked.add(symbol.name());
        }
        assertThat(checked).hasSize(HipNative.Symbol.values().length);
        assertThat(prototype(header, "hipGraphUpload"))
                .as("ROCm 5.2 does not declare hipGraphUpload")
                .isEmpty();
    }

    @Test
    void every_hiprtc_binding_matches_its_prototype_in_hiprtc_h() throws IOException {
        assumeTrue(Files.exists(HIPRTC_HEADER), "hiprtc.h is not installed here (apt-get install libamdhip64-dev)");
        String header = Files.readString(HIPRTC_HEADER);
        for (Map.Entry<String, FunctionDescriptor> binding : Hiprtc.SIGNATURES.entrySet()) {
            String prototype = prototype(header, binding.getKey())
                    .orElseThrow(() -> new AssertionError("hiprtc.h does not declare " + binding.getKey()));
            assertThat(binding.getValue()).as(prototype).isEqualTo(descriptor(prototype, binding.getKey()));
        }
    }

    @Test
    void the_type_mapping_reads_pointers_handles_and_sizes_as_the_ABI_passes_them() {
        assertThat(descriptor(
                        "hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes, "
                                + "hipStream_t stream);",
                        "hipMemcpyHtoDAsync"))
                .isEqualTo(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
        assertThat(descriptor("const char* hipGetErrorName(hipError_t hip_error);", "hipGetErrorName"))
                .isEqualTo(FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /** The first declaration of {@code name} that starts a line (not a doc comment), up to its semicolon. */
    static Optional<String> prototype(String header, String name) {
        return CSignatures.prototype(header, "hipError_t|hiprtcResult|const char\\*", name);
    }

    /** The FFM descriptor a prototype calls for on x86-64 and AArch64 Linux. */
    static FunctionDescriptor descriptor(String prototype, String name) {
        return TYPES.descriptor(prototype, name);
    }
}
