package dev.graphrt.backend.cuda;

import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.DeviceQueries;

/**
 * What the driver says about one device: the facts the probe prints and {@link DeviceInfo} carries.
 *
 * @param ordinal        device ordinal
 * @param name           e.g. "NVIDIA H200"
 * @param major          compute capability major
 * @param minor          compute capability minor
 * @param multiprocessors SM count
 * @param totalMemory    bytes of device memory
 * @param driverVersion  the driver's CUDA version, e.g. 13000
 * @param limits         the largest launch the device takes
 */
record CudaDeviceDescription(
        int ordinal,
        String name,
        int major,
        int minor,
        int multiprocessors,
        long totalMemory,
        int driverVersion,
        LaunchLimits limits) {

    /** Asks the driver (initialised) about the device of {@code ordinal}. */
    static CudaDeviceDescription query(int ordinal) {
        int device = CudaDriver.device(ordinal);
        DeviceQueries ask = new DeviceQueries(
                CudaDriver.CALLS,
                CudaHandles.BINDER,
                Symbol.cuDeviceGetName,
                Symbol.cuDeviceTotalMem_v2,
                Symbol.cuDeviceGetAttribute);
        return new CudaDeviceDescription(
                ordinal,
                ask.name(device),
                ask.attribute(CudaNative.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
                ask.attribute(CudaNative.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
                ask.attribute(CudaNative.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
                ask.totalMemory(device),
                CudaDriver.driverVersion(),
                ask.launchLimits(CudaNative.CU_LAUNCH_LIMIT_ATTRIBUTES, device));
    }

    /** "13.0" for 13000. */
    static String versionText(int driverVersion) {
        return driverVersion / 1000 + "." + (driverVersion % 1000) / 10;
    }

    /** The compute capability as a number: 90 for 9.0. */
    int computeCapability() {
        return major * 10 + minor;
    }

    /** "NVIDIA H200, sm_90, driver 13.0". */
    String summary() {
        return name + ", sm_" + major + minor + ", driver " + versionText(driverVersion);
    }

    DeviceInfo toDeviceInfo() {
        return new DeviceInfo(
                "cuda",
                name,
                "CUDA driver " + versionText(driverVersion) + ", sm_" + major + minor,
                totalMemory,
                multiprocessors,
                limits);
    }
}
