package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * The {@link DeviceMemoryDriver} of a CUDA-like API: device allocation and freeing pinned memory are made here
 * through handles bound from the backend's {@link MemorySymbols}, every result is checked here, and a pinned
 * allocation runs under the backend's {@link RelaxedCaptureMode} so that it never invalidates a capture in
 * progress. The backend writes the three calls whose C signatures differ between CUDA and HIP, each a raw
 * {@code invokeExact} returning its result code.
 *
 * <p>Why a base class: the two memory drivers were the same five checked calls over different names; what is
 * left in each backend is now exactly where the APIs differ. None of these calls is on a hot path (the core's
 * pools allocate ahead, uploads here are synchronous).
 */
public abstract class BoundDeviceMemory implements DeviceMemoryDriver {
    private final DriverCalls calls;
    private final MemorySymbols symbols;
    private final RelaxedCaptureMode relaxed;
    private final MethodHandle allocate;
    private final MethodHandle freePinned;

    /**
     * Binds the shared {@code symbols} through {@code binder}; results are checked with {@code calls}, pinned
     * allocations made under {@code relaxed}.
     */
    protected BoundDeviceMemory(
            DriverCalls calls, NativeBinder binder, MemorySymbols symbols, RelaxedCaptureMode relaxed) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.symbols = Objects.requireNonNull(symbols, "symbols");
        this.relaxed = Objects.requireNonNull(relaxed, "relaxed");
        this.allocate = binder.bind(symbols.allocate());
        this.freePinned = binder.bind(symbols.freePinned());
    }

    /** The free call's code for the device block at {@code pointer}. */
    protected abstract int rawFree(long pointer) throws Throwable;

    /** The synchronous host-to-device copy's code. */
    protected abstract int rawCopyToDevice(long address, MemorySegment src, long bytes) throws Throwable;

    /** The pinned allocation's code; it stores the block's address at {@code out}. */
    protected abstract int rawAllocatePinned(MemorySegment out, long bytes) throws Throwable;

    /**
     * Whether a synchronous upload must run under the RELAXED exchange too, where the API was not shown to allow
     * it during another stream's capture (the H200 showed {@code cuMemcpyHtoD_v2} does; HIP was never measured).
     */
    protected boolean uploadsRelaxed() {
        return false;
    }

    /** A device allocation of {@code bytes}; out-of-memory raises {@code DeviceOutOfMemoryException}. */
    @Override
    public final long allocate(long bytes) {
        return calls.allocationOut(symbols.allocate().name(), bytes, out -> (int) allocate.invokeExact(out, bytes))
                .address();
    }

    @Override
    public final void free(long pointer) {
        calls.run(symbols.free().name(), () -> rawFree(pointer));
    }

    @Override
    public final void copyToDevice(long address, MemorySegment src, long bytes) {
        if (!uploadsRelaxed()) {
            calls.run(symbols.copyToDevice().name(), () -> rawCopyToDevice(address, src, bytes));
            return;
        }
        relaxed.run(() -> {
            calls.run(symbols.copyToDevice().name(), () -> rawCopyToDevice(address, src, bytes));
            return null;
        });
    }

    @Override
    public final MemorySegment allocatePinned(long bytes) {
        return relaxed.run(() ->
                calls.allocationOut(symbols.allocatePinned().name(), bytes, out -> rawAllocatePinned(out, bytes)));
    }

    @Override
    public final void freePinned(MemorySegment block) {
        calls.run(symbols.freePinned().name(), () -> (int) freePinned.invokeExact(block));
    }
}
