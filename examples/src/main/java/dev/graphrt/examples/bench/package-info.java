/**
 * Benchmarks: JMH for the core's CPU-side costs, and GPU benches that run beside a floor (a C program, or a plain
 * FFM program in the same JVM) so every figure has its baseline from the same run (docs/benchmarks/).
 */
package dev.graphrt.examples.bench;
