package dev.graphrt.api;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One kernel, with one entry point and a text per dialect (and a {@link JavaKernel} for the CPU
 * backend). Arguments follow one layout in every dialect, documented in {@code docs/kernels.md}:
 * buffers in order, then (when the launch has info words) the info buffer as the last argument.
 * Immutable; build with {@link #named(String)} and the dialect methods.
 */
public final class KernelSource {
    private final String entryPoint;
    private final Map<Dialect, String> texts;
    private final @Nullable JavaKernel javaKernel;
    private final @Nullable JavaParameters javaParameters;
    private final boolean programmaticDependent;

    private KernelSource(
            String entryPoint,
            Map<Dialect, String> texts,
            @Nullable JavaKernel javaKernel,
            @Nullable JavaParameters javaParameters,
            boolean programmaticDependent) {
        this.entryPoint = entryPoint;
        this.texts = texts;
        this.javaKernel = javaKernel;
        this.javaParameters = javaParameters;
        this.programmaticDependent = programmaticDependent;
    }

    /** Starts a kernel whose entry point (function name in every text dialect) is {@code entryPoint}. */
    public static KernelSource named(String entryPoint) {
        Objects.requireNonNull(entryPoint, "entryPoint");
        if (!entryPoint.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("entryPoint must be a C identifier, was '" + entryPoint + "'");
        }
        return new KernelSource(entryPoint, Map.of(), null, null, false);
    }

    public KernelSource cuda(String text) {
        return withText(Dialect.CUDA_C, text);
    }

    public KernelSource hip(String text) {
        return withText(Dialect.HIP_C, text);
    }

    public KernelSource wgsl(String text) {
        return withText(Dialect.WGSL, text);
    }

    /**
     * The Java implementation, with undeclared parameters: the cpu backend cannot tell how many buffers it reads,
     * so its launches are <em>not</em> checked at the call (too few buffers then fail inside the kernel when the
     * stream next synchronises, too many are ignored). Prefer {@link #java(JavaKernel, JavaParameters)}.
     */
    public KernelSource java(JavaKernel kernel) {
        return new KernelSource(
                entryPoint, texts, Objects.requireNonNull(kernel, "kernel"), null, programmaticDependent);
    }

    /**
     * The Java implementation and the parameters it takes: every launch of it whose buffers (and info buffer)
     * differ from {@code parameters} is refused at the call with {@code IllegalArgumentException}, as a CUDA or
     * WGSL kernel's launches are checked against its signature.
     */
    public KernelSource java(JavaKernel kernel, JavaParameters parameters) {
        return new KernelSource(
                entryPoint,
                texts,
                Objects.requireNonNull(kernel, "kernel"),
                Objects.requireNonNull(parameters, "parameters"),
                programmaticDependent);
    }

    /**
     * Opts this kernel into programmatic dependent launch (capability {@link Capability#PROGRAMMATIC_DEPENDENT_LAUNCH}):
     * where the backend declares it, each launch of the kernel may start while the work ahead of it on the stream is
     * still running, so the kernel's CUDA C text must call {@code graphrt_wait_for_predecessors()} before it reads or
     * writes any memory that earlier work uses. It may call {@code graphrt_launch_dependents()} once its own
     * successors may start (their wait still holds them until this kernel has finished). Both functions are defined
     * for the CUDA C and HIP C texts of an opted-in kernel only (docs/kernels.md); where the capability is not
     * declared they do nothing and the launch is an ordinary one. WGSL and Java texts need no change.
     *
     * <p>The opt-in belongs to the kernel, not to a launch: only the kernel's author knows where it first touches
     * its predecessors' memory. A kernel that opts in without waiting reads stale data on a declaring backend.
     */
    public KernelSource programmaticDependent() {
        return new KernelSource(entryPoint, texts, javaKernel, javaParameters, true);
    }

    /** Whether the kernel opted into programmatic dependent launch ({@link #programmaticDependent()}). */
    public boolean isProgrammaticDependent() {
        return programmaticDependent;
    }

    private KernelSource withText(Dialect dialect, String text) {
        Objects.requireNonNull(text, "text");
        if (text.isBlank()) {
            throw new IllegalArgumentException("text of " + dialect + " must not be blank");
        }
        Map<Dialect, String> copy = new EnumMap<>(Dialect.class);
        copy.putAll(texts);
        copy.put(dialect, text);
        return new KernelSource(entryPoint, Map.copyOf(copy), javaKernel, javaParameters, programmaticDependent);
    }

    public String entryPoint() {
        return entryPoint;
    }

    /** The text for a dialect; HIP_C falls back to the CUDA C text, which HIP accepts for ordinary kernels. */
    public Optional<String> text(Dialect dialect) {
        String text = texts.get(dialect);
        if (text == null && dialect == Dialect.HIP_C) {
            text = texts.get(Dialect.CUDA_C);
        }
        return Optional.ofNullable(text);
    }

    public Optional<JavaKernel> javaKernel() {
        return Optional.ofNullable(javaKernel);
    }

    /** The parameters the Java kernel declared; empty when it was given without them (its launches are unchecked). */
    public Optional<JavaParameters> javaParameters() {
        return Optional.ofNullable(javaParameters);
    }

    /** Whether this source can be compiled in {@code dialect}. */
    public boolean has(Dialect dialect) {
        return dialect == Dialect.JAVA ? javaKernel != null : text(dialect).isPresent();
    }

    /**
     * Equal when the entry point, every text, the Java kernel (by identity), its declared parameters and the
     * programmatic opt-in are equal: the compile-cache key.
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof KernelSource k
                && k.entryPoint.equals(entryPoint)
                && k.texts.equals(texts)
                && k.javaKernel == javaKernel
                && Objects.equals(k.javaParameters, javaParameters)
                && k.programmaticDependent == programmaticDependent;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                entryPoint, texts, System.identityHashCode(javaKernel), javaParameters, programmaticDependent);
    }

    @Override
    public String toString() {
        return "KernelSource[" + entryPoint + ", dialects=" + texts.keySet() + (javaKernel != null ? "+JAVA" : "")
                + (programmaticDependent ? ", programmatic dependent" : "") + "]";
    }
}
