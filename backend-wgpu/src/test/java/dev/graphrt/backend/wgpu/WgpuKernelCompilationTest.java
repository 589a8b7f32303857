package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.CompiledKernel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuKernelCompilationTest {
    private WgpuBackend backend;

    @BeforeAll
    void open() {
        backend = WgpuTestSupport.open();
    }

    @AfterAll
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void a_wgsl_kernel_compiles_into_a_pipeline_and_is_cached() {
        CompiledKernel kernel = backend.compiler().compile(WgpuTestSupport.ADD_ONE);

        assertThat(kernel.entryPoint()).isEqualTo("add_one");
        assertThat(kernel.dialect()).isEqualTo(Dialect.WGSL);
        assertThat(backend.compiler().compile(WgpuTestSupport.ADD_ONE)).isSameAs(kernel);
        assertThat(backend.compiler().dialects()).containsExactly(Dialect.WGSL);
    }

    @Test
    void a_kernel_declares_as_many_parameters_as_its_wgsl_declares_bindings() {
        KernelSource three = KernelSource.named("scale").wgsl("""
                @group(0) @binding(0) var<storage, read_write> src: array<f32>;
                @group(0) @binding(1) var<storage, read_write> dst: array<f32>;
                @group(0) @binding(2) var<storage, read_write> info: array<u32>;
                @compute @workgroup_size(64)
                fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
                    if (id.x < info[0]) { dst[id.x] = src[id.x] * 2.0; }
                }
                """);

        assertThat(backend.compiler().compile(three).declaredParameters()).hasValue(3);
    }

    @Test
    void a_broken_kernel_fails_with_the_compiler_message() {
        KernelSource broken = KernelSource.named("broken").wgsl("""
                @group(0) @binding(0) var<storage, read_write> data: array<f32>;
                @compute @workgroup_size(64)
                fn broken(@builtin(global_invocation_id) id: vec3<u32>) {
                    data[id.x] = undefined_value * 2.0;
                }
                """);

        assertThatThrownBy(() -> backend.compiler().compile(broken))
                .isInstanceOfSatisfying(KernelCompilationException.class, e -> {
                    assertThat(e.getMessage()).contains("broken").contains("does not compile");
                    assertThat(e.log()).contains("undefined_value").contains("error");
                    assertThat(e.log()).containsPattern("4:\\d+");
                });
    }

    @Test
    void a_missing_entry_point_fails_at_compile_time_not_at_launch() {
        KernelSource wrongName = KernelSource.named("not_there")
                .wgsl(WgpuTestSupport.ADD_ONE.text(Dialect.WGSL).orElseThrow());

        assertThatThrownBy(() -> backend.compiler().compile(wrongName))
                .isInstanceOfSatisfying(
                        KernelCompilationException.class,
                        e -> assertThat(e.getMessage()).contains("not_there").contains("pipeline creation failed"));
    }

    @Test
    void a_source_without_wgsl_is_rejected_naming_the_dialects() {
        KernelSource cudaOnly = KernelSource.named("k").cuda("extern \"C\" __global__ void k() {}");

        assertThatThrownBy(() -> backend.compiler().compile(cudaOnly))
                .isInstanceOf(KernelCompilationException.class)
                .hasMessageContaining("WGSL")
                .hasMessageContaining("CUDA_C");
    }

    @Test
    void a_binding_outside_group_zero_is_rejected_with_the_rule() {
        KernelSource otherGroup = KernelSource.named("k").wgsl("""
                @group(1) @binding(0) var<storage, read_write> data: array<f32>;
                @compute @workgroup_size(1) fn k() { data[0] = 1.0; }
                """);

        assertThatThrownBy(() -> backend.compiler().compile(otherGroup))
                .isInstanceOf(KernelCompilationException.class)
                .hasMessageContaining("@group(0)");
    }
}
