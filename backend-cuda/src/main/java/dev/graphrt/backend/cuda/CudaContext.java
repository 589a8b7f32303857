package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.driver.PeerAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The retained primary context of one device, made current on whichever thread calls into the backend.
 *
 * <p>Why the driver is asked on every entry ({@code cuCtxGetCurrent}) rather than a per-thread "already current"
 * flag kept here: a flag goes stale when another backend instance (another device) or other CUDA code on the same
 * thread sets its own context, and then work silently lands on the wrong device. And why it is asked first rather
 * than told ({@code cuCtxSetCurrent} every time, as before): reading the current context is a read of the driver's
 * thread state, while setting it, even to the context already current, is a call that may do more. Measured on the
 * H200 (driver 580) in a plain C program ({@code dependent_launch_floor.cu}, its {@code set_current} and
 * {@code get_current} ablations), setting it before a graph launch added 0.1-0.4 µs in one job and nothing beyond
 * the noise in another; GraphRT's eager launch measured the same either way (docs/benchmarks/launch-floor-h200.md).
 */
final class CudaContext {
    // the raw handles of the context calls, made only here; bound on first use (after the probe found a driver)
    private static final MethodHandle cuDevicePrimaryCtxRetain =
            CudaHandles.BINDER.bind(Symbol.cuDevicePrimaryCtxRetain);
    private static final MethodHandle cuDevicePrimaryCtxRelease =
            CudaHandles.BINDER.bind(Symbol.cuDevicePrimaryCtxRelease_v2);
    private static final MethodHandle cuDevicePrimaryCtxReset =
            CudaHandles.BINDER.bind(Symbol.cuDevicePrimaryCtxReset_v2);
    private static final MethodHandle cuCtxSynchronize = CudaHandles.BINDER.bind(Symbol.cuCtxSynchronize);
    private static final MethodHandle cuCtxSetCurrent = CudaHandles.BINDER.bind(Symbol.cuCtxSetCurrent);
    private static final MethodHandle cuCtxGetCurrent = CudaHandles.BINDER.bind(Symbol.cuCtxGetCurrent);
    private static final MethodHandle cuDeviceCanAccessPeer = CudaHandles.BINDER.bind(Symbol.cuDeviceCanAccessPeer);
    private static final MethodHandle cuCtxEnablePeerAccess = CudaHandles.BINDER.bind(Symbol.cuCtxEnablePeerAccess);

    private final int device;
    private final MemorySegment context;
    /** Each calling thread's out-parameter of {@code cuCtxGetCurrent}: the check allocates nothing after the first. */
    private final ThreadLocal<MemorySegment> currentOut =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(ADDRESS));

    private CudaContext(int device, MemorySegment context) {
        this.device = device;
        this.context = context;
    }

    /** Retains the primary context of the device of {@code ordinal} and makes it current here. */
    static CudaContext retainPrimary(int ordinal) {
        int device = CudaDriver.device(ordinal);
        MemorySegment context = primaryContextRetain(device);
        CudaContext retained = new CudaContext(device, context);
        try {
            retained.makeCurrent();
        } catch (RuntimeException e) {
            try {
                primaryContextRelease(device);
            } catch (RuntimeException release) {
                e.addSuppressed(release);
            }
            throw e;
        }
        return retained;
    }

    /** Binds the context to the calling thread, unless the driver says it is bound already. */
    void makeCurrent() {
        MemorySegment current = currentOut.get();
        int rc;
        try { // hot: no lambda
            rc = (int) cuCtxGetCurrent.invokeExact(current);
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuCtxGetCurrent", t);
        }
        if (rc != HardwareGraphErrors.SUCCESS || current.get(JAVA_LONG, 0) != context.address()) {
            contextSetCurrent(context);
        }
    }

    /** Whether this context reaches {@code peer}'s memory directly, enabling it the first time (see {@link PeerAccess}). */
    boolean reaches(PeerAccess peers, CudaStream key, CudaContext peer) {
        return peers.reaches(
                key,
                peer.device == device,
                out -> (int) cuDeviceCanAccessPeer.invokeExact(out, device, peer.device),
                () -> (int) cuCtxEnablePeerAccess.invokeExact(peer.context, 0));
    }

    /**
     * Ends one runtime's use of the primary context, which stays retained for the process, as the CUDA runtime
     * keeps it: releasing the last hold destroys the context, and the next runtime then pays for creating it again
     * (most of a cuda runtime's open, measured on the H200; docs/decisions.md, "The primary context"). A context
     * left with a sticky error (an illegal address, a trap) is reset, so later runtimes start on a clean one
     * (measured on the H200: without the reset the next retain returned 719); other runtimes on it are lost anyway.
     */
    void release() {
        makeCurrent();
        if (contextLost()) {
            primaryContextReset(device);
        }
    }

    // ---- the typed context calls ---------------------------------------------------------------------

    private static MemorySegment primaryContextRetain(int device) {
        return CudaDriver.CALLS.addressOut(
                "cuDevicePrimaryCtxRetain", out -> (int) cuDevicePrimaryCtxRetain.invokeExact(out, device));
    }

    private static void primaryContextRelease(int device) {
        CudaDriver.CALLS.run("cuDevicePrimaryCtxRelease_v2", () -> (int) cuDevicePrimaryCtxRelease.invokeExact(device));
    }

    /**
     * Whether the current context holds a sticky error (an illegal address, a trap): then it must be reset before
     * the device works again. Waits for the context's work, which is done at a backend's close anyway.
     */
    private static boolean contextLost() {
        try {
            return HardwareGraphErrors.isSticky((int) cuCtxSynchronize.invokeExact());
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuCtxSynchronize", t);
        }
    }

    /** Destroys every allocation and all state of the device's primary context: the way out of a sticky error. */
    private static void primaryContextReset(int device) {
        CudaDriver.CALLS.run("cuDevicePrimaryCtxReset_v2", () -> (int) cuDevicePrimaryCtxReset.invokeExact(device));
    }

    /** Binds {@code context} to the calling thread; cheap when it already is. Hot: on every entry. */
    private static void contextSetCurrent(MemorySegment context) {
        try { // hot: no lambda
            CudaDriver.check("cuCtxSetCurrent", (int) cuCtxSetCurrent.invokeExact(context));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuCtxSetCurrent", t);
        }
    }
}
