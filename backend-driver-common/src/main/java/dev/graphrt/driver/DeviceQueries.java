package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.graphrt.api.LaunchLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * The three questions a backend asks about a device when it opens: its name, its memory and an attribute, through
 * {@code cuDeviceGetName}/{@code hipDeviceGetName} {@code (char*, int len, device)},
 * {@code cuDeviceTotalMem_v2}/{@code hipDeviceTotalMem} {@code (size_t*, device)} and
 * {@code cuDeviceGetAttribute}/{@code hipDeviceGetAttribute} {@code (int*, attribute, device)}.
 *
 * <p>Why shared: CUDA and HIP declare these alike (a {@code CUdevice} and a HIP device ordinal are both ints); only
 * the attribute numbers differ, and the backend passes its own. Asked once per opening, so the handles are bound
 * per instance.
 */
public final class DeviceQueries {
    /** The longest name read; longer ones are cut (both APIs truncate to the buffer). */
    private static final int NAME_CAPACITY = 256;

    private final DriverCalls calls;
    private final String nameCall;
    private final String totalMemoryCall;
    private final String attributeCall;
    private final MethodHandle name;
    private final MethodHandle totalMemory;
    private final MethodHandle attribute;

    /** Binds the three symbols through {@code binder}; results are checked with {@code calls}. */
    public DeviceQueries(
            DriverCalls calls,
            NativeBinder binder,
            NativeSymbol name,
            NativeSymbol totalMemory,
            NativeSymbol attribute) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.nameCall = name.name();
        this.totalMemoryCall = totalMemory.name();
        this.attributeCall = attribute.name();
        this.name = binder.bind(name);
        this.totalMemory = binder.bind(totalMemory);
        this.attribute = binder.bind(attribute);
    }

    /** The device's name, e.g. "NVIDIA H200". */
    public String name(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(NAME_CAPACITY);
            calls.run(nameCall, () -> (int) name.invokeExact(out, NAME_CAPACITY, device));
            out.set(JAVA_BYTE, NAME_CAPACITY - 1, (byte) 0);
            return out.getString(0);
        }
    }

    /** Bytes of device memory. */
    public long totalMemory(int device) {
        return calls.longOut(totalMemoryCall, out -> (int) totalMemory.invokeExact(out, device));
    }

    /** The value of {@code attributeCode} (in the API's numbering) for the device. */
    public int attribute(int attributeCode, int device) {
        return calls.intOut(attributeCall + "(" + attributeCode + ")", out ->
                (int) attribute.invokeExact(out, attributeCode, device));
    }

    /** The attribute numbers of a device's launch limits, in the API's numbering ({@code CUdevice_attribute}, ...). */
    public record LimitAttributes(
            int maxGridX,
            int maxGridY,
            int maxGridZ,
            int maxBlockX,
            int maxBlockY,
            int maxBlockZ,
            int maxThreadsPerBlock) {}

    /** The device's launch limits, asked once when the backend opens; every launch is checked against them. */
    public LaunchLimits launchLimits(LimitAttributes codes, int device) {
        return new LaunchLimits(
                attribute(codes.maxGridX(), device),
                attribute(codes.maxGridY(), device),
                attribute(codes.maxGridZ(), device),
                attribute(codes.maxBlockX(), device),
                attribute(codes.maxBlockY(), device),
                attribute(codes.maxBlockZ(), device),
                attribute(codes.maxThreadsPerBlock(), device));
    }
}
