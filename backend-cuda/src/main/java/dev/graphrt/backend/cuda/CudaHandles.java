package dev.graphrt.backend.cuda;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.NativeBinder;
import java.lang.invoke.MethodHandle;

/**
 * The binder of the CUDA driver's symbols, and the raw handles of {@link CudaDriver}'s process-wide calls: each a
 * {@code static final} downcall handle of one {@link Symbol}, named as the driver exports it. Every other class
 * that makes driver calls keeps its own handles, bound through {@link #BINDER}, next to the typed calls that
 * check them; the shared driver layer binds the calls CUDA declares as HIP does.
 *
 * <p>Why {@code static final} fields: the JIT treats them as constants and inlines the downcall. The class is
 * initialised on first use, which the backend makes only after {@link CudaLibrary#failure()} was empty, so a
 * machine without a driver never fails in a class initialiser. An optional symbol the driver lacks is null.
 */
final class CudaHandles {
    /** Binds this library's symbols; also for the cold calls the shared driver layer binds itself. */
    static final NativeBinder BINDER = new NativeBinder(CudaLibrary.lookup(), CudaLibrary.NAME);

    static final MethodHandle cuInit = BINDER.bind(Symbol.cuInit);
    static final MethodHandle cuDriverGetVersion = BINDER.bind(Symbol.cuDriverGetVersion);
    static final MethodHandle cuGetErrorName = BINDER.bind(Symbol.cuGetErrorName);
    static final MethodHandle cuDeviceGetCount = BINDER.bind(Symbol.cuDeviceGetCount);
    static final MethodHandle cuDeviceGet = BINDER.bind(Symbol.cuDeviceGet);
    static final MethodHandle cuThreadExchangeStreamCaptureMode = BINDER.bind(Symbol.cuThreadExchangeStreamCaptureMode);

    private CudaHandles() {}
}
