/**
 * The shared driver layer of the hardware-graph backends (cuda, hip): one driver stream, backend, memory and
 * runtime-compiler flow over a CUDA-like API whose calls each backend binds once through FFM. Why shared: the two
 * APIs differ in names and a few signatures only, so every driver call and its checks are written here once.
 */
package dev.graphrt.driver;
