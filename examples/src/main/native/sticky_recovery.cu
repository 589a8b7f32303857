// Can a process recover from a sticky CUDA error (a trapping kernel)? Plain driver API, no GraphRT.
// Tries, after the trap: (1) reset the primary context and retain it again, (2) a new context of its own.
// Build: nvcc -O2 -o sticky_recovery sticky_recovery.cu -lcuda
#include <cuda.h>
#include <cstdio>

static const char *name(CUresult rc) { const char *s = nullptr; cuGetErrorName(rc, &s); return s ? s : "?"; }
#define SHOW(call) do { CUresult rc_ = (call); printf("%-48s -> %d %s\n", #call, (int) rc_, name(rc_)); } while (0)

static const char *PTX_TRAP =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry trap_kernel() { trap; ret; }\n";

static CUresult work(const char *label) {
    CUdeviceptr p = 0;
    CUresult rc = cuMemAlloc(&p, 1 << 20);
    printf("%s: cuMemAlloc -> %d %s\n", label, (int) rc, name(rc));
    if (rc == CUDA_SUCCESS) { rc = cuMemsetD8(p, 7, 1 << 20); printf("%s: cuMemsetD8 -> %d %s\n", label, (int) rc, name(rc));
        rc = cuCtxSynchronize(); printf("%s: cuCtxSynchronize -> %d %s\n", label, (int) rc, name(rc)); cuMemFree(p); }
    return rc;
}

int main() {
    CUdevice dev; CUcontext primary, fresh; CUmodule mod; CUfunction fn;
    SHOW(cuInit(0)); SHOW(cuDeviceGet(&dev, 0));
    SHOW(cuDevicePrimaryCtxRetain(&primary, dev)); SHOW(cuCtxSetCurrent(primary));
    SHOW(cuModuleLoadData(&mod, PTX_TRAP)); SHOW(cuModuleGetFunction(&fn, mod, "trap_kernel"));
    SHOW(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
    SHOW(cuCtxSynchronize());
    work("after the trap");
    printf("-- (1) reset the primary context, release, retain again\n");
    SHOW(cuDevicePrimaryCtxReset(dev));
    SHOW(cuDevicePrimaryCtxRelease(dev));
    SHOW(cuDevicePrimaryCtxRetain(&primary, dev)); SHOW(cuCtxSetCurrent(primary));
    CUresult one = work("primary after reset");
    printf("-- (2) a context of its own\n");
#if CUDA_VERSION >= 13000
    SHOW(cuCtxCreate(&fresh, nullptr, 0, dev));
#else
    SHOW(cuCtxCreate(&fresh, 0, dev));
#endif
    CUresult two = work("own context");
    printf("summary: primary_reset=%s own_context=%s\n", one == CUDA_SUCCESS ? "works" : "broken",
           two == CUDA_SUCCESS ? "works" : "broken");
    return 0;
}
