/**
 * GraphRT's user API: open a {@link dev.graphrt.api.GraphRuntime} on a backend, allocate {@link dev.graphrt.api.Buffer}s,
 * launch {@link dev.graphrt.api.Kernel}s on a {@link dev.graphrt.api.GpuStream}, capture a step into a
 * {@link dev.graphrt.api.Graph} and replay it. The one jar users compile against; every operation refuses bad input at
 * the call, naming the argument, and the rules of what may happen while a stream captures are DESIGN.md section 3.
 */
@NullMarked
package dev.graphrt.api;

import org.jspecify.annotations.NullMarked;
