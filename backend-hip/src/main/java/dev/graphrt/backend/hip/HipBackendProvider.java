package dev.graphrt.backend.hip;

import dev.graphrt.driver.DriverBackendProvider;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.BackendConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HIP backend's entry point for {@link java.util.ServiceLoader}: the HIP runtime API ({@code libamdhip64})
 * through FFM, hiprtc for HIP C kernels (the CUDA C text when a kernel has none), hardware graphs by stream
 * capture, with the same capture hooks, capabilities and exceptions as the cuda backend.
 *
 * <p>{@link #probe(BackendConfig)} never throws (see {@link DriverBackendProvider}) and says exactly why HIP
 * cannot be used, or what it found:
 * <ul>
 *   <li>"libamdhip64 not found (tried ...)" when no library loads (see {@link HipLibrary} for where it looks:
 *       the backend option {@code hip.library}, {@code -Dgraphrt.hip.library}, {@code GRAPHRT_HIP_LIB}, then
 *       {@code libamdhip64.so}, {@code .so.5}, {@code .so.6});</li>
 *   <li>"no HIP device (hipGetDeviceCount → 100)" when the library loads but sees no GPU: what Debian's real
 *       {@code libamdhip64.so.5} answers on a machine without an AMD GPU ({@code hipInit} there returns 101,
 *       {@code hipGetDeviceCount} 100, so the device count is asked whatever {@code hipInit} said, and the
 *       count's answer is the reason);</li>
 *   <li>"AMD ..., HIP 5.2.21153, cc 9.0" when a device is there.</li>
 * </ul>
 * Priority 90: below cuda (100) where both could run, above the pure-Java backend. Construction does no
 * native work.
 */
public final class HipBackendProvider extends DriverBackendProvider {
    private static final Logger LOG = LoggerFactory.getLogger(HipBackendProvider.class);
    /** Priority of a usable HIP device: below cuda, above the pure-Java backend (0). */
    public static final int PRIORITY = 90;

    public HipBackendProvider() {
        super("hip", PRIORITY, HipBackend::open);
    }

    /** Probes the library {@code config} names (option {@value HipLibrary#OPTION}), or the JVM-wide one. */
    @Override
    protected Availability check(BackendConfig config) {
        HipLibrary.Loaded loaded = HipLibrary.load(config);
        if (loaded.failure() != null) {
            return Availability.unavailable(loaded.failure());
        }
        int init = HipRuntime.tryInit();
        HipRuntime.DeviceCount count = HipRuntime.tryDeviceCount();
        LOG.debug(
                "hip probe: {} loaded; hipInit → {} {}, hipGetDeviceCount → {} {} (count {})",
                loaded.origin(),
                init,
                HipRuntime.resultName(init),
                count.result(),
                HipRuntime.resultName(count.result()),
                count.count());
        if (count.result() == HipNative.HIP_ERROR_NO_DEVICE) {
            return Availability.unavailable("no HIP device (hipGetDeviceCount → " + count.result() + ")");
        }
        if (count.result() != HardwareGraphErrors.SUCCESS) {
            return Availability.unavailable(
                    "hipGetDeviceCount failed: " + count.result() + " " + HipRuntime.resultName(count.result()));
        }
        if (count.count() <= 0) {
            return Availability.unavailable("no HIP device (hipGetDeviceCount = " + count.count() + ")");
        }
        if (init != HardwareGraphErrors.SUCCESS) {
            return Availability.unavailable("hipInit failed: " + init + " " + HipRuntime.resultName(init));
        }
        return devices(count.count(), HipDeviceDescription.query(0).summary());
    }
}
