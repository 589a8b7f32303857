package dev.graphrt.backend.hip;

import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.BoundDeviceMemory;
import dev.graphrt.driver.DriverDeviceMemory;
import dev.graphrt.driver.MemorySymbols;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Raw device storage and pinned host memory through {@code hipMalloc}/{@code hipFree} and
 * {@code hipHostMalloc}/{@code hipHostFree}: the runtime calls behind the shared {@link DriverDeviceMemory},
 * which makes the device current first; {@link BoundDeviceMemory} makes and checks the calls HIP shares with
 * CUDA, this class the three whose signatures differ (device pointers are {@code void*}, {@code hipHostMalloc}
 * takes flags). A pinned allocation exchanges the thread's capture
 * mode to RELAXED. The core never allocates or frees while a stream of this backend records, which matters more
 * on HIP than on CUDA: ROCm's {@code hipFree} synchronises the device.
 *
 * <p>An upload is a synchronous {@code hipMemcpyHtoD}, made under a RELAXED capture-mode exchange: every
 * stream of this backend is non-blocking, so the copy does not wait for them, and the exchange keeps it from
 * counting as an unsafe call against a GLOBAL or THREAD_LOCAL capture in progress on another stream (the
 * cuda backend needs no exchange here: the H200 showed {@code cuMemcpyHtoD_v2} is legal then; for ROCm no
 * such measurement exists, so this backend does not rely on it).
 */
final class HipDeviceMemory extends BoundDeviceMemory {
    // the raw handles of the calls made here; static final, so the JIT inlines each downcall
    private static final MethodHandle hipFree = HipHandles.BINDER.bind(Symbol.hipFree);
    private static final MethodHandle hipHostMalloc = HipHandles.BINDER.bind(Symbol.hipHostMalloc);
    private static final MethodHandle hipMemcpyHtoD = HipHandles.BINDER.bind(Symbol.hipMemcpyHtoD);
    private static final MemorySymbols SYMBOLS = new MemorySymbols(
            Symbol.hipMalloc, Symbol.hipFree, Symbol.hipMemcpyHtoD, Symbol.hipHostMalloc, Symbol.hipHostFree);

    HipDeviceMemory() {
        super(HipRuntime.CALLS, HipHandles.BINDER, SYMBOLS, HipRuntime::withRelaxedCaptureMode);
    }

    /** HIP was never measured uploading during another stream's capture: the upload runs RELAXED too. */
    @Override
    protected boolean uploadsRelaxed() {
        return true;
    }

    @Override
    protected int rawFree(long pointer) throws Throwable {
        return (int) hipFree.invokeExact(MemorySegment.ofAddress(pointer));
    }

    @Override
    protected int rawCopyToDevice(long address, MemorySegment src, long bytes) throws Throwable {
        return (int) hipMemcpyHtoD.invokeExact(MemorySegment.ofAddress(address), src, bytes);
    }

    /** Default flags; {@code hipHostFree} of the block synchronises the device on ROCm, so it waits for no capture. */
    @Override
    protected int rawAllocatePinned(MemorySegment out, long bytes) throws Throwable {
        return (int) hipHostMalloc.invokeExact(out, bytes, HipNative.HIP_HOST_MALLOC_DEFAULT);
    }
}
