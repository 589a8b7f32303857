/**
 * The backend conformance kit: extend {@link dev.graphrt.conformance.CaptureConformanceKit} in a backend's tests and
 * every group runs against it, each comparing outputs exactly over poisoned buffers; a group whose capability the
 * backend does not declare checks the refusal instead. The teeth matrix proves the kit fails broken backends.
 */
package dev.graphrt.conformance;
