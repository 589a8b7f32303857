package dev.graphrt.core.runtime;

import dev.graphrt.api.BlockShape;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.Kernel;
import dev.graphrt.spi.CompiledKernel;
import java.util.Optional;
import java.util.Set;

/** A compiled kernel bound to the runtime that compiled it (by its scope: a kernel never reaches the runtime). */
record CoreKernel(RuntimeScope scope, CompiledKernel compiled, Set<Dialect> offered) implements Kernel {
    @Override
    public String entryPoint() {
        return compiled.entryPoint();
    }

    @Override
    public Dialect dialect() {
        return compiled.dialect();
    }

    @Override
    public Optional<BlockShape> requiredBlock() {
        return compiled.requiredBlock();
    }

    @Override
    public String toString() {
        return "kernel " + entryPoint() + " (" + dialect() + ")";
    }
}
