package dev.graphrt.api;

import java.util.Optional;
import java.util.Set;

/** A kernel compiled for one runtime's backend, cached by its source. Launch it on any stream of that runtime. */
public interface Kernel {
    String entryPoint();

    /** The dialect the backend compiled. */
    Dialect dialect();

    /** Dialects the source offered. */
    Set<Dialect> offered();

    /**
     * The block every launch of this kernel must use, where its source fixes it (WGSL's {@code @workgroup_size});
     * empty where the launch chooses. A launch with another block is refused at the call, naming both.
     */
    default Optional<BlockShape> requiredBlock() {
        return Optional.empty();
    }
}
