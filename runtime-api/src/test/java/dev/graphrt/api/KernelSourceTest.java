package dev.graphrt.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KernelSourceTest {
    private static final KernelSource PLAIN = KernelSource.named("k")
            .cuda("extern \"C\" __global__ void k() {}")
            .wgsl("@compute @workgroup_size(1) fn k() {}")
            .java((args, from, to) -> {}, JavaParameters.buffersAndInfo(0));

    @Test
    void an_opted_in_source_keeps_every_text_and_its_java_kernel_but_is_another_compile_cache_key() {
        KernelSource opted = PLAIN.programmaticDependent();

        assertThat(opted.isProgrammaticDependent()).isTrue();
        assertThat(PLAIN.isProgrammaticDependent()).isFalse();
        assertThat(opted.text(Dialect.CUDA_C)).isEqualTo(PLAIN.text(Dialect.CUDA_C));
        assertThat(opted.text(Dialect.HIP_C))
                .as("HIP falls back to the CUDA text")
                .isEqualTo(PLAIN.text(Dialect.CUDA_C));
        assertThat(opted.text(Dialect.WGSL)).isEqualTo(PLAIN.text(Dialect.WGSL));
        assertThat(opted.javaKernel()).isEqualTo(PLAIN.javaKernel());
        assertThat(opted.javaParameters()).isEqualTo(PLAIN.javaParameters());
        assertThat(opted).isNotEqualTo(PLAIN).isEqualTo(PLAIN.programmaticDependent());
        assertThat(opted.hashCode()).isEqualTo(PLAIN.programmaticDependent().hashCode());
        assertThat(opted.toString()).contains("programmatic dependent");
    }

    @Test
    void the_opt_in_survives_texts_and_java_kernels_added_after_it() {
        KernelSource opted = KernelSource.named("k")
                .programmaticDependent()
                .cuda("extern \"C\" __global__ void k() {}")
                .java((args, from, to) -> {});

        assertThat(opted.isProgrammaticDependent()).isTrue();
        assertThat(opted.has(Dialect.CUDA_C)).isTrue();
        assertThat(opted.has(Dialect.JAVA)).isTrue();
    }
}
