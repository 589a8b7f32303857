package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CKernelSignatureTest {
    private static final String KIT_STYLE = """
            extern "C" __global__ void add_one(const unsigned int* src, unsigned int* dst,
                                               const unsigned int* info) {
                unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < info[0]) { dst[i] = src[i] + 1u; }
            }
            """;

    @Test
    void the_buffers_and_the_info_pointer_of_an_extern_c_global_kernel_are_counted() {
        assertThat(CKernelSignature.parameterCount(KIT_STYLE, "add_one")).hasValue(3);
    }

    @Test
    void a_kernel_without_parameters_has_none() {
        assertThat(CKernelSignature.parameterCount("extern \"C\" __global__ void k() {}", "k"))
                .hasValue(0);
        assertThat(CKernelSignature.parameterCount("extern \"C\" __global__ void k(void) {}", "k"))
                .hasValue(0);
    }

    @Test
    void the_entry_point_is_found_among_helpers_calls_and_other_kernels() {
        String source = """
                #define CLAMP(x) ((x) < 0 ? 0 : (x))
                __device__ float add_one_helper(float a, float b) { return a + b; }
                extern "C" __global__ void other(float* a) { }
                extern "C" __global__ void add_one(float* a, float* b, const int* info) {
                    a[0] = add_one_helper(b[0], 1.0f);
                }
                """;

        assertThat(CKernelSignature.parameterCount(source, "add_one")).hasValue(3);
        assertThat(CKernelSignature.parameterCount(source, "other")).hasValue(1);
    }

    @Test
    void a_call_of_the_kernel_name_inside_another_body_is_not_its_declaration() {
        String source = """
                __device__ void scale(float* a, float s) { a[0] *= s; }
                extern "C" __global__ void run(float* a, const int* info) { scale(a, 2.0f); }
                extern "C" __global__ void scale_all(float* a) { }
                """;

        assertThat(CKernelSignature.parameterCount(source, "scale")).isEmpty();
    }

    @Test
    void attributes_templates_comments_and_an_extern_c_block_do_not_confuse_the_count() {
        String source = """
                // extern "C" __global__ void k(int* only_one) in a comment
                extern "C" {
                /* a block comment, with a comma, */
                __global__ void __launch_bounds__(256, 2) k(Pair<float, int>* pairs, // first
                        float (*table)[4], const int* info) { }
                }
                """;

        assertThat(CKernelSignature.parameterCount(source, "k")).hasValue(3);
    }

    @Test
    void a_kernel_declared_through_a_macro_is_unknown_not_guessed() {
        String source = """
                #define KERNEL(name) extern "C" __global__ void name(float* a, float* b)
                KERNEL(k) { }
                """;

        assertThat(CKernelSignature.parameterCount(source, "k")).isEmpty();
    }

    @Test
    void an_entry_point_that_is_not_in_the_text_is_unknown() {
        assertThat(CKernelSignature.parameterCount(KIT_STYLE, "mul_two")).isEmpty();
    }
}
