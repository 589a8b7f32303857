package dev.graphrt.backend.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CpuCompilerTest {
    private static final JavaKernel BODY = (args, from, to) -> {};
    private final CpuCompiler compiler = new CpuCompiler();

    @Test
    void a_java_kernel_reports_the_buffers_and_info_buffer_it_declared() {
        assertThat(compiler.compile(KernelSource.named("k").java(BODY, JavaParameters.buffersAndInfo(2)))
                        .declaredParameters())
                .hasValue(3);
        assertThat(compiler.compile(KernelSource.named("k").java(BODY, JavaParameters.buffers(4)))
                        .declaredParameters())
                .hasValue(4);
    }

    @Test
    void a_java_kernel_without_declared_parameters_reports_none_so_its_launches_are_unchecked() {
        assertThat(compiler.compile(KernelSource.named("k").java(BODY)).declaredParameters())
                .isEmpty();
    }

    @Test
    void the_declared_parameters_are_part_of_the_compile_cache_key() {
        assertThat(KernelSource.named("k").java(BODY, JavaParameters.buffers(1)))
                .isNotEqualTo(KernelSource.named("k").java(BODY, JavaParameters.buffers(2)))
                .isNotEqualTo(KernelSource.named("k").java(BODY))
                .isEqualTo(KernelSource.named("k").java(BODY, JavaParameters.buffers(1)));
    }
}
