package dev.graphrt.backend.cuda;

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
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Every downcall descriptor of {@link CudaNative.Symbol} against the C prototype that declares it in the CUDA
 * toolkit's {@code cuda.h}, wherever it is installed (the H200 machine has it; set {@value #HEADER_PROPERTY} to
 * point elsewhere): a wrong handle crashes the JVM. Elsewhere the check is skipped, saying so.
 *
 * <p>{@code cuda.h} declares many functions under their API name and {@code #define}s that name to the exported,
 * versioned symbol ({@code #define cuMemAlloc cuMemAlloc_v2}); where no declaration has the symbol's own name,
 * the test follows the define. An optional symbol
 * that the installed header no longer declares is reported, not failed: it is bound only where exported.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CudaSignaturesTest {
    /** System property naming another {@code cuda.h}. */
    static final String HEADER_PROPERTY = "graphrt.cuda.header";

    private static final Path DEFAULT_HEADER = Path.of("/usr/local/cuda/include/cuda.h");
    private static final String RETURNS = "(?:__CUDA_DEPRECATED\\s+)?CUresult\\s+CUDAAPI";
    private static final CSignatures TYPES = new CSignatures(
            Set.of(
                    "CUcontext",
                    "CUstream",
                    "CUevent",
                    "CUmodule",
                    "CUfunction",
                    "CUgraph",
                    "CUgraphExec",
                    "CUgraphNode"),
            Set.of(
                    "int",
                    "unsigned int",
                    "unsigned",
                    "CUdevice",
                    "CUresult",
                    "CUstreamCaptureMode",
                    "CUdevice_attribute",
                    "CUjit_option",
                    "CUgraphNodeType",
                    "CUstreamCaptureStatus"),
            Set.of("size_t", "unsigned long long", "CUdeviceptr", "cuuint64_t"),
            Set.of("CUDAAPI", "__CUDA_DEPRECATED"));

    @Test
    void every_driver_binding_matches_its_prototype_in_cuda_h() throws IOException {
        Path path = Path.of(System.getProperty(HEADER_PROPERTY, DEFAULT_HEADER.toString()));
        assumeTrue(
                Files.exists(path),
                "cuda.h is not installed here (" + path + "; the CUDA toolkit puts it in "
                        + "/usr/local/cuda/include, or set -D" + HEADER_PROPERTY + ")");
        String header = Files.readString(path);
        List<String> notDeclared = new ArrayList<>();
        for (CudaNative.Symbol symbol : CudaNative.Symbol.values()) {
            Optional<Declaration> declaration = declaration(header, symbol.name());
            if (declaration.isEmpty() && !symbol.required()) {
                notDeclared.add(symbol.name());
                continue;
            }
            assertThat(declaration)
                    .as("a declaration of " + symbol.name() + " in " + path)
                    .isPresent();
            Declaration found = declaration.get();
            assertThat(symbol.descriptor())
                    .as(found.prototype())
                    .isEqualTo(TYPES.descriptor(found.prototype(), found.name()));
        }
        assertThat(notDeclared)
                .as("optional symbols this cuda.h does not declare")
                .doesNotContain(CudaNative.Symbol.cuFuncGetParamInfo.name(), CudaNative.Symbol.cuFuncLoad.name());
    }

    @Test
    void a_versioned_symbol_is_checked_against_the_api_name_that_defines_to_it() {
        String header = """
                #define cuMemAlloc                          cuMemAlloc_v2
                #define cuStreamBeginCapture                __CUDA_API_PTSZ(cuStreamBeginCapture_v2)
                #define cuStreamGetCaptureInfo_v3           __CUDA_API_PTSZ(cuStreamGetCaptureInfo_v3)
                CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
                CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode);
                CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                        cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
                        const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out);
                """;

        assertThat(declaration(header, "cuMemAlloc_v2")).map(Declaration::name).contains("cuMemAlloc");
        assertThat(declaration(header, "cuStreamBeginCapture_v2"))
                .map(Declaration::name)
                .contains("cuStreamBeginCapture");
        assertThat(declaration(header, "cuStreamGetCaptureInfo_v3"))
                .map(Declaration::name)
                .contains("cuStreamGetCaptureInfo_v3");
        Declaration alloc = declaration(header, "cuMemAlloc_v2").orElseThrow();
        assertThat(TYPES.descriptor(alloc.prototype(), alloc.name()))
                .isEqualTo(CudaNative.Symbol.cuMemAlloc_v2.descriptor());
    }

    @Test
    void the_type_mapping_reads_device_pointers_as_64_bit_integers_and_handles_as_pointers() {
        assertThat(TYPES.descriptor(
                        "CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, "
                                + "size_t ByteCount, CUstream hStream);",
                        "cuMemcpyHtoDAsync"))
                .isEqualTo(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
        assertThat(TYPES.descriptor(
                        "CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr);", "cuGetErrorName"))
                .isEqualTo(FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    /** A prototype and the name it declares. */
    private record Declaration(String name, String prototype) {}

    /**
     * The prototype of {@code symbol} itself where the header declares it by that name, else of the API name that
     * {@code #define}s to it (the header's first declaration of that name: older ABIs come later, if at all).
     */
    private static Optional<Declaration> declaration(String header, String symbol) {
        Optional<String> direct = CSignatures.prototype(header, RETURNS, symbol);
        if (direct.isPresent()) {
            return Optional.of(new Declaration(symbol, direct.get()));
        }
        return CSignatures.definedAs(header, symbol)
                .flatMap(api ->
                        CSignatures.prototype(header, RETURNS, api).map(prototype -> new Declaration(api, prototype)));
    }
}
