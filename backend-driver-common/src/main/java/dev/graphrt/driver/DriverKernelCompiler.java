package dev.graphrt.driver;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.KernelCompiler;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel compiler of a driver backend: source text, then the backend's {@link KernelToolchain} (compile,
 * load the module, find the function, check its parameters), to a {@link DriverKernel}. Its parameter count is the
 * driver's where the driver can tell ({@code cuFuncGetParamInfo}), else the one of the {@code extern "C"
 * __global__} declaration in the text ({@link CKernelSignature}; hip, older CUDA), else unknown.
 *
 * <p>Modules are cached by source text ({@link LoadedModules}), so several kernels of one text share a module;
 * all are unloaded when the backend closes. Compiled images are also kept on disk between processes
 * ({@link KernelImageCache}), so a warm start loads instead of compiling. Thread-safe: one compilation at a time, since compilation is rare
 * (the core caches kernels) and the module cache is not thread-safe.
 */
public final class DriverKernelCompiler implements KernelCompiler {
    private static final Logger LOG = LoggerFactory.getLogger(DriverKernelCompiler.class);

    private final DriverContext context;
    private final String backend;
    private final KernelToolchain toolchain;
    private final LoadedModules modules;
    private final KernelImageCache images;

    /**
     * The compiler of the backend whose {@code context} is made current before {@code toolchain}'s steps, without
     * a disk cache.
     */
    public DriverKernelCompiler(DriverContext context, KernelToolchain toolchain) {
        this(context, toolchain, KernelImageCache.off());
    }

    /** As above, keeping compiled images in {@code images} between processes. */
    public DriverKernelCompiler(DriverContext context, KernelToolchain toolchain, KernelImageCache images) {
        this.context = Objects.requireNonNull(context, "context");
        this.backend = context.names().backend();
        this.toolchain = Objects.requireNonNull(toolchain, "toolchain");
        this.images = Objects.requireNonNull(images, "images");
        this.modules = new LoadedModules(backend);
    }

    @Override
    public List<Dialect> dialects() {
        return List.of(toolchain.dialect());
    }

    @Override
    public synchronized CompiledKernel compile(KernelSource source) {
        Objects.requireNonNull(source, "source");
        modules.ensureOpen();
        String entry = source.entryPoint();
        String text = source.text(toolchain.dialect())
                .orElseThrow(() -> new KernelCompilationException(toolchain.missingSourceMessage(entry), ""));
        String compiled = source.isProgrammaticDependent()
                ? DependentLaunchPrelude.wrap(toolchain.dependentLaunchPrelude(), text)
                : text;
        context.makeCurrent();
        MemorySegment module = modules.module(compiled, t -> load(entry, t));
        MemorySegment function = toolchain.function(module, entry);
        int parameterCount = toolchain.parameterCount(entry, function);
        String from = "the driver";
        if (parameterCount < 0) {
            parameterCount = CKernelSignature.parameterCount(text, entry).orElse(-1);
            from = "its signature";
        }
        boolean programmatic = toolchain.launchesAsDependent(source);
        LOG.debug(
                "{}: compiled kernel '{}' ({} parameters, from {}{})",
                backend,
                entry,
                parameterCount,
                from,
                programmatic ? "; launched as a programmatic dependent" : "");
        return new DriverKernel(backend, toolchain.dialect(), entry, function, parameterCount, programmatic);
    }

    /**
     * The module of {@code text}: from the disk cache's image when there is one the driver accepts, else compiled;
     * a compiled image is stored only once it loaded. A cached image the driver refuses is deleted, then compiled.
     */
    private MemorySegment load(String entry, String text) {
        KernelImageCache.Entry cached = images.entry(toolchain.imageKey(), entry, text);
        Optional<byte[]> image = cached.read();
        if (image.isPresent()) {
            try {
                MemorySegment module = toolchain.loadModule(entry, image.get());
                LOG.debug("{}: kernel '{}' loaded from the kernel cache", backend, entry);
                return module;
            } catch (KernelCompilationException refused) {
                LOG.warn(
                        "{}: the cached image of kernel '{}' was refused ({}); compiling it again",
                        backend,
                        entry,
                        refused.getMessage());
                cached.delete();
            }
        }
        byte[] compiled = toolchain.compile(entry, text);
        MemorySegment module = toolchain.loadModule(entry, compiled);
        cached.write(compiled);
        return module;
    }

    /** Unloads every module; later compilations fail. */
    public synchronized void close() {
        if (modules.markClosed()) {
            context.makeCurrent();
            modules.unloadAll(toolchain::unloadModule);
        }
    }
}
