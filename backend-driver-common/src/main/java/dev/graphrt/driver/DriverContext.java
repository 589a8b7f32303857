package dev.graphrt.driver;

/**
 * Who a driver backend is and how its device becomes the calling thread's: the part that its streams, memory and
 * compiler all need before any native call ({@code cuCtxSetCurrent} of the primary context, {@code hipSetDevice}).
 *
 * <p>Why every entry makes it current rather than remembering per thread: a remembered flag goes stale when other
 * code on the thread switches devices, and then work silently lands on the wrong device; the drivers return at
 * once when it already is current.
 */
public interface DriverContext {

    /** The backend's name, its calls' prefix and its result-code mapping. */
    DriverNames names();

    /** Makes the backend's context (device) current on the calling thread. */
    void makeCurrent();
}
