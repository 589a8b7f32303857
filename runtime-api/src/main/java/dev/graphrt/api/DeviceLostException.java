package dev.graphrt.api;

/**
 * The runtime's device is lost: a sticky device error (an illegal address, a trap, a launch failure, a lost
 * WebGPU device) left it unusable for this runtime. Every later call on the runtime, its streams and graphs
 * fails fast with this exception, naming the first error and the operation or graph that hit it; closing still
 * completes and frees what it can. Where the backend declares {@code DEVICE_LOSS_RECOVERY} (wgpu) a new runtime
 * ({@code GraphRT.open()}) works; on cuda and hip the NVIDIA driver keeps the whole process poisoned after such
 * an error, so a new runtime fails with this exception too, and the way out is a new process.
 */
public final class DeviceLostException extends GraphRTException {
    private final String operation;

    public DeviceLostException(String message, String operation, Throwable firstError) {
        super(message, firstError);
        this.operation = operation;
    }

    /** A backend's report of a sticky error in {@code call} (code and name as the driver gives them). */
    public DeviceLostException(String call, int code, String codeName) {
        super(call + " failed: " + code + " " + codeName + ": a sticky device error; the runtime is lost, every "
                + "later call fails; close it and open a new runtime");
        this.operation = call;
    }

    /** The operation (or graph) during which the device was found lost. */
    public String operation() {
        return operation;
    }
}
