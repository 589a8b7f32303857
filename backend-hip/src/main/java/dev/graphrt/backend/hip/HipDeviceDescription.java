package dev.graphrt.backend.hip;

import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.DeviceQueries;

/**
 * What the HIP runtime says about one device: the facts the probe prints and {@link DeviceInfo} carries.
 *
 * @param ordinal         device ordinal
 * @param name            e.g. "AMD Instinct MI250X", or "NVIDIA H200" under the HIP-on-CUDA test library
 * @param major           {@code hipDeviceAttributeComputeCapabilityMajor}
 * @param minor           {@code hipDeviceAttributeComputeCapabilityMinor}
 * @param multiprocessors compute units ({@code hipDeviceAttributeMultiprocessorCount})
 * @param totalMemory     bytes of device memory
 * @param runtimeVersion  {@code HIP_VERSION} of the runtime, e.g. 50221153
 * @param graphUpload     whether the library exports {@code hipGraphUpload}
 * @param limits          the largest launch the device takes
 */
record HipDeviceDescription(
        int ordinal,
        String name,
        int major,
        int minor,
        int multiprocessors,
        long totalMemory,
        int runtimeVersion,
        boolean graphUpload,
        LaunchLimits limits) {

    /** Asks the runtime (initialised) about the device of {@code ordinal}. */
    static HipDeviceDescription query(int ordinal) {
        DeviceQueries ask = new DeviceQueries(
                HipRuntime.CALLS,
                HipHandles.BINDER,
                Symbol.hipDeviceGetName,
                Symbol.hipDeviceTotalMem,
                Symbol.hipDeviceGetAttribute);
        return new HipDeviceDescription(
                ordinal,
                ask.name(ordinal),
                ask.attribute(HipNative.HIP_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ordinal),
                ask.attribute(HipNative.HIP_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ordinal),
                ask.attribute(HipNative.HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ordinal),
                ask.totalMemory(ordinal),
                HipRuntime.runtimeVersion(),
                HipRuntime.hasGraphUpload(),
                ask.launchLimits(HipNative.HIP_LAUNCH_LIMIT_ATTRIBUTES, ordinal));
    }

    /** "AMD Instinct MI250X, HIP 5.2.21153, cc 9.0". */
    String summary() {
        return name + ", HIP " + HipNative.versionText(runtimeVersion) + ", cc " + major + "." + minor;
    }

    /** The driver line: the HIP version, and that graphs are uploaded at first launch when it must. */
    DeviceInfo toDeviceInfo() {
        return new DeviceInfo(
                "hip",
                name,
                "HIP " + HipNative.versionText(runtimeVersion) + ", cc " + major + "." + minor
                        + (graphUpload ? "" : ", no hipGraphUpload (graphs upload at first replay)"),
                totalMemory,
                multiprocessors,
                limits);
    }
}
