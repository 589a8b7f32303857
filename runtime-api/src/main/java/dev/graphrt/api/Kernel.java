package dev.graphrt.api;

import java.util.Set;

/** A kernel compiled for one runtime's backend, cached by its source. Launch it on any stream of that runtime. */
public interface Kernel {
    String entryPoint();

    /** The dialect the backend compiled. */
    Dialect dialect();

    /** Dialects the source offered. */
    Set<Dialect> offered();
}
