package dev.graphrt.backend.hip;

import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.NativeBinder;
import java.lang.invoke.MethodHandle;

/**
 * The binder of the HIP runtime's symbols, and the raw handles of {@link HipRuntime}'s process-wide calls: each a
 * {@code static final} downcall handle of one {@link Symbol}, named as {@code libamdhip64} exports it. Every other
 * class that makes runtime calls keeps its own handles, bound through {@link #BINDER}, next to the typed calls
 * that check them; the shared driver layer binds the calls HIP declares as CUDA does.
 *
 * <p>Why {@code static final} fields: the JIT treats them as constants and inlines the downcall. The class is
 * initialised on first use, which the backend makes only after {@link HipLibrary#failure()} was empty, so a
 * machine without HIP never fails in a class initialiser.
 */
final class HipHandles {
    /** Binds this library's symbols; also for the cold calls the shared driver layer binds itself. */
    static final NativeBinder BINDER = new NativeBinder(HipLibrary.lookup(), HipLibrary.origin());

    static final MethodHandle hipInit = BINDER.bind(Symbol.hipInit);
    static final MethodHandle hipDriverGetVersion = BINDER.bind(Symbol.hipDriverGetVersion);
    static final MethodHandle hipRuntimeGetVersion = BINDER.bind(Symbol.hipRuntimeGetVersion);
    static final MethodHandle hipGetErrorName = BINDER.bind(Symbol.hipGetErrorName);
    static final MethodHandle hipGetDeviceCount = BINDER.bind(Symbol.hipGetDeviceCount);
    static final MethodHandle hipSetDevice = BINDER.bind(Symbol.hipSetDevice);
    static final MethodHandle hipThreadExchangeStreamCaptureMode =
            BINDER.bind(Symbol.hipThreadExchangeStreamCaptureMode);
    static final MethodHandle hipDeviceSynchronize = BINDER.bind(Symbol.hipDeviceSynchronize);
    static final MethodHandle hipDeviceReset = BINDER.bind(Symbol.hipDeviceReset);

    private HipHandles() {}
}
