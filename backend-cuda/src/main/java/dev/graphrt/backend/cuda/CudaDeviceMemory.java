package dev.graphrt.backend.cuda;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.BoundDeviceMemory;
import dev.graphrt.driver.DriverDeviceMemory;
import dev.graphrt.driver.MemorySymbols;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Raw device storage and pinned host memory through {@code cuMemAlloc_v2}/{@code cuMemFree_v2} and
 * {@code cuMemAllocHost_v2}/{@code cuMemFreeHost}: the driver calls behind the shared {@link DriverDeviceMemory},
 * which makes the backend's context current first; {@link BoundDeviceMemory} makes and checks the calls CUDA
 * shares with HIP, this class the three whose signatures differ ({@code CUdeviceptr} is an integer).
 *
 * <p>An upload is a synchronous {@code cuMemcpyHtoD_v2}: every stream of this backend is non-blocking, so the
 * copy does not synchronise with them and is legal while one of them captures (H200 probe 10), which is exactly
 * what the core needs for info buffers. A pinned allocation exchanges the thread's capture mode to RELAXED so
 * that it never invalidates a capture in progress.
 */
final class CudaDeviceMemory extends BoundDeviceMemory {
    // the raw handles of the calls made here; static final, so the JIT inlines each downcall
    private static final MethodHandle cuMemFree = CudaHandles.BINDER.bind(Symbol.cuMemFree_v2);
    private static final MethodHandle cuMemAllocHost = CudaHandles.BINDER.bind(Symbol.cuMemAllocHost_v2);
    private static final MethodHandle cuMemcpyHtoD = CudaHandles.BINDER.bind(Symbol.cuMemcpyHtoD_v2);
    private static final MemorySymbols SYMBOLS = new MemorySymbols(
            Symbol.cuMemAlloc_v2,
            Symbol.cuMemFree_v2,
            Symbol.cuMemcpyHtoD_v2,
            Symbol.cuMemAllocHost_v2,
            Symbol.cuMemFreeHost);

    CudaDeviceMemory() {
        super(CudaDriver.CALLS, CudaHandles.BINDER, SYMBOLS, CudaDriver::withRelaxedCaptureMode);
    }

    @Override
    protected int rawFree(long pointer) throws Throwable {
        return (int) cuMemFree.invokeExact(pointer);
    }

    @Override
    protected int rawCopyToDevice(long address, MemorySegment src, long bytes) throws Throwable {
        return (int) cuMemcpyHtoD.invokeExact(address, src, bytes);
    }

    @Override
    protected int rawAllocatePinned(MemorySegment out, long bytes) throws Throwable {
        return (int) cuMemAllocHost.invokeExact(out, bytes);
    }
}
