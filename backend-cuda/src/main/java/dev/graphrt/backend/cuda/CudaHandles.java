package dev.graphrt.backend.cuda;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.NativeBinder;
import java.lang.invoke.MethodHandle;

/**
 * The raw layer of the CUDA bindings: one {@code static final} downcall handle per {@link Symbol}, bound by the
 * shared {@link NativeBinder}, named as the driver exports it. Nobody calls these but {@link CudaDriver}, the
 * typed layer, which checks every result.
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
    static final MethodHandle cuDeviceGetName = BINDER.bind(Symbol.cuDeviceGetName);
    static final MethodHandle cuDeviceTotalMem = BINDER.bind(Symbol.cuDeviceTotalMem_v2);
    static final MethodHandle cuDeviceGetAttribute = BINDER.bind(Symbol.cuDeviceGetAttribute);
    static final MethodHandle cuDevicePrimaryCtxRetain = BINDER.bind(Symbol.cuDevicePrimaryCtxRetain);
    static final MethodHandle cuDevicePrimaryCtxRelease = BINDER.bind(Symbol.cuDevicePrimaryCtxRelease_v2);
    static final MethodHandle cuDevicePrimaryCtxReset = BINDER.bind(Symbol.cuDevicePrimaryCtxReset_v2);
    static final MethodHandle cuCtxSynchronize = BINDER.bind(Symbol.cuCtxSynchronize);
    static final MethodHandle cuCtxSetCurrent = BINDER.bind(Symbol.cuCtxSetCurrent);
    static final MethodHandle cuThreadExchangeStreamCaptureMode = BINDER.bind(Symbol.cuThreadExchangeStreamCaptureMode);
    static final MethodHandle cuStreamSynchronize = BINDER.bind(Symbol.cuStreamSynchronize);
    static final MethodHandle cuMemAlloc = BINDER.bind(Symbol.cuMemAlloc_v2);
    static final MethodHandle cuMemFree = BINDER.bind(Symbol.cuMemFree_v2);
    static final MethodHandle cuMemAllocHost = BINDER.bind(Symbol.cuMemAllocHost_v2);
    static final MethodHandle cuMemFreeHost = BINDER.bind(Symbol.cuMemFreeHost);
    static final MethodHandle cuMemcpyHtoD = BINDER.bind(Symbol.cuMemcpyHtoD_v2);
    static final MethodHandle cuMemcpyHtoDAsync = BINDER.bind(Symbol.cuMemcpyHtoDAsync_v2);
    static final MethodHandle cuMemcpyDtoHAsync = BINDER.bind(Symbol.cuMemcpyDtoHAsync_v2);
    static final MethodHandle cuModuleLoadDataEx = BINDER.bind(Symbol.cuModuleLoadDataEx);
    static final MethodHandle cuModuleGetFunction = BINDER.bind(Symbol.cuModuleGetFunction);
    static final MethodHandle cuModuleUnload = BINDER.bind(Symbol.cuModuleUnload);
    static final MethodHandle cuFuncGetParamInfo = BINDER.bind(Symbol.cuFuncGetParamInfo);
    static final MethodHandle cuFuncLoad = BINDER.bind(Symbol.cuFuncLoad);
    static final MethodHandle cuLaunchKernel = BINDER.bind(Symbol.cuLaunchKernel);
    static final MethodHandle cuEventRecord = BINDER.bind(Symbol.cuEventRecord);
    static final MethodHandle cuEventQuery = BINDER.bind(Symbol.cuEventQuery);
    static final MethodHandle cuStreamGetCaptureInfoV3 = BINDER.bind(Symbol.cuStreamGetCaptureInfo_v3);
    static final MethodHandle cuStreamGetCaptureInfoV2 = BINDER.bind(Symbol.cuStreamGetCaptureInfo_v2);
    static final MethodHandle cuGraphLaunch = BINDER.bind(Symbol.cuGraphLaunch);


    private CudaHandles() {
    }
}
