package dev.graphrt.backend.hip;

import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.NativeBinder;
import java.lang.invoke.MethodHandle;

/**
 * The raw layer of the HIP bindings: one {@code static final} downcall handle per {@link Symbol}, bound by the
 * shared {@link NativeBinder}, named as {@code libamdhip64} exports it. Nobody calls these but
 * {@link HipRuntime}, the typed layer, which checks every result.
 *
 * <p>Why {@code static final} fields: the JIT treats them as constants and inlines the downcall. The class is
 * initialised on first use, which the backend makes only after {@link HipLibrary#failure()} was empty, so a
 * machine without HIP never fails in a class initialiser. The optional symbols ({@code hipGraphUpload},
 * {@code hipGraphDebugDotPrint}) are null where the library lacks them.
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
    static final MethodHandle hipDeviceGetName = BINDER.bind(Symbol.hipDeviceGetName);
    static final MethodHandle hipDeviceTotalMem = BINDER.bind(Symbol.hipDeviceTotalMem);
    static final MethodHandle hipDeviceGetAttribute = BINDER.bind(Symbol.hipDeviceGetAttribute);
    static final MethodHandle hipThreadExchangeStreamCaptureMode = BINDER.bind(Symbol.hipThreadExchangeStreamCaptureMode);
    static final MethodHandle hipStreamSynchronize = BINDER.bind(Symbol.hipStreamSynchronize);
    static final MethodHandle hipDeviceSynchronize = BINDER.bind(Symbol.hipDeviceSynchronize);
    static final MethodHandle hipDeviceReset = BINDER.bind(Symbol.hipDeviceReset);
    static final MethodHandle hipMalloc = BINDER.bind(Symbol.hipMalloc);
    static final MethodHandle hipFree = BINDER.bind(Symbol.hipFree);
    static final MethodHandle hipHostMalloc = BINDER.bind(Symbol.hipHostMalloc);
    static final MethodHandle hipHostFree = BINDER.bind(Symbol.hipHostFree);
    static final MethodHandle hipMemcpyHtoD = BINDER.bind(Symbol.hipMemcpyHtoD);
    static final MethodHandle hipMemcpyHtoDAsync = BINDER.bind(Symbol.hipMemcpyHtoDAsync);
    static final MethodHandle hipMemcpyDtoHAsync = BINDER.bind(Symbol.hipMemcpyDtoHAsync);
    static final MethodHandle hipModuleLoadData = BINDER.bind(Symbol.hipModuleLoadData);
    static final MethodHandle hipModuleGetFunction = BINDER.bind(Symbol.hipModuleGetFunction);
    static final MethodHandle hipModuleUnload = BINDER.bind(Symbol.hipModuleUnload);
    static final MethodHandle hipModuleLaunchKernel = BINDER.bind(Symbol.hipModuleLaunchKernel);
    static final MethodHandle hipEventRecord = BINDER.bind(Symbol.hipEventRecord);
    static final MethodHandle hipEventQuery = BINDER.bind(Symbol.hipEventQuery);
    static final MethodHandle hipGraphLaunch = BINDER.bind(Symbol.hipGraphLaunch);

    private HipHandles() {
    }
}
