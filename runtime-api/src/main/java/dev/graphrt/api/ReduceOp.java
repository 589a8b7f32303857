package dev.graphrt.api;

/**
 * How a reducing collective ({@link Communicator#allReduce}, {@link Communicator#reduceScatter}) combines the ranks'
 * elements, element by element. The same four NCCL and RCCL offer, so every backend gives the same results.
 */
public enum ReduceOp {
    SUM,
    PRODUCT,
    MAX,
    MIN
}
