package dev.graphrt.core.metadata;

/**
 * NORMAL: size-gated, LRU, bounded. CAPTURE (the whole PREPARE+CAPTURE window): caches any size, evicts
 * nothing and pins every entry touched, because a graph bakes in each info buffer's address.
 */
public enum CacheMode {
    NORMAL,
    CAPTURE
}
