package dev.graphrt.backend.wgpu;

import static dev.graphrt.backend.wgpu.WebGpuHeader.ADAPTER_INFO;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CALLBACK_INFO;
import static dev.graphrt.backend.wgpu.WebGpuHeader.FUTURE;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.DriverException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;

/**
 * Typed wrappers over the {@code webgpu.h} functions the backend calls. The handles live in static finals of
 * the nested holder, which is initialised only by {@link #bind()} after {@link NativeLibrary#load} found the
 * library, so nothing here can fail before the probe has decided the library is usable. Functions returning a
 * {@code WGPUFuture} take a {@link SegmentAllocator} for the returned struct and answer its id.
 */
final class Wgpu {
    private Wgpu() {}

    /** Initialises the holder: binds every symbol now, so a missing one is found by the probe. */
    static void bind() {
        H.touch();
    }

    private static MethodHandle fn(String name, MemoryLayout result, MemoryLayout... args) {
        FunctionDescriptor descriptor =
                result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return NativeLibrary.downcall(name, descriptor);
    }

    private static DriverException failure(String call, Throwable t) {
        DriverException e = new DriverException(call, -1, "NativeCallFailed", t.toString());
        e.initCause(t);
        return e;
    }

    // ---- instance and adapter ------------------------------------------------------------------------------

    static MemorySegment createInstance(MemorySegment descriptor) {
        try {
            return (MemorySegment) H.CREATE_INSTANCE.invokeExact(descriptor);
        } catch (Throwable t) {
            throw failure("wgpuCreateInstance", t);
        }
    }

    static long instanceRequestAdapter(
            SegmentAllocator a, MemorySegment instance, MemorySegment options, MemorySegment callbackInfo) {
        try {
            MemorySegment f =
                    (MemorySegment) H.INSTANCE_REQUEST_ADAPTER.invokeExact(a, instance, options, callbackInfo);
            return f.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw failure("wgpuInstanceRequestAdapter", t);
        }
    }

    static int instanceWaitAny(MemorySegment instance, long count, MemorySegment waitInfos, long timeoutNs) {
        try {
            return (int) H.INSTANCE_WAIT_ANY.invokeExact(instance, count, waitInfos, timeoutNs);
        } catch (Throwable t) {
            throw failure("wgpuInstanceWaitAny", t);
        }
    }

    static void instanceProcessEvents(MemorySegment instance) {
        try {
            H.INSTANCE_PROCESS_EVENTS.invokeExact(instance);
        } catch (Throwable t) {
            throw failure("wgpuInstanceProcessEvents", t);
        }
    }

    static void instanceRelease(MemorySegment instance) {
        release(H.INSTANCE_RELEASE, "wgpuInstanceRelease", instance);
    }

    static int adapterGetInfo(MemorySegment adapter, MemorySegment info) {
        try {
            return (int) H.ADAPTER_GET_INFO.invokeExact(adapter, info);
        } catch (Throwable t) {
            throw failure("wgpuAdapterGetInfo", t);
        }
    }

    static void adapterInfoFreeMembers(MemorySegment info) {
        try {
            H.ADAPTER_INFO_FREE_MEMBERS.invokeExact(info);
        } catch (Throwable t) {
            throw failure("wgpuAdapterInfoFreeMembers", t);
        }
    }

    static int adapterGetLimits(MemorySegment adapter, MemorySegment limits) {
        try {
            return (int) H.ADAPTER_GET_LIMITS.invokeExact(adapter, limits);
        } catch (Throwable t) {
            throw failure("wgpuAdapterGetLimits", t);
        }
    }

    static long adapterRequestDevice(
            SegmentAllocator a, MemorySegment adapter, MemorySegment descriptor, MemorySegment callbackInfo) {
        try {
            MemorySegment f =
                    (MemorySegment) H.ADAPTER_REQUEST_DEVICE.invokeExact(a, adapter, descriptor, callbackInfo);
            return f.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw failure("wgpuAdapterRequestDevice", t);
        }
    }

    static void adapterRelease(MemorySegment adapter) {
        release(H.ADAPTER_RELEASE, "wgpuAdapterRelease", adapter);
    }

    // ---- device --------------------------------------------------------------------------------------------

    static int deviceGetLimits(MemorySegment device, MemorySegment limits) {
        try {
            return (int) H.DEVICE_GET_LIMITS.invokeExact(device, limits);
        } catch (Throwable t) {
            throw failure("wgpuDeviceGetLimits", t);
        }
    }

    static MemorySegment deviceGetQueue(MemorySegment device) {
        return create(H.DEVICE_GET_QUEUE, "wgpuDeviceGetQueue", device);
    }

    static MemorySegment deviceCreateBuffer(MemorySegment device, MemorySegment descriptor) {
        return create(H.DEVICE_CREATE_BUFFER, "wgpuDeviceCreateBuffer", device, descriptor);
    }

    static MemorySegment deviceCreateShaderModule(MemorySegment device, MemorySegment descriptor) {
        return create(H.DEVICE_CREATE_SHADER_MODULE, "wgpuDeviceCreateShaderModule", device, descriptor);
    }

    static MemorySegment deviceCreateBindGroupLayout(MemorySegment device, MemorySegment descriptor) {
        return create(H.DEVICE_CREATE_BIND_GROUP_LAYOUT, "wgpuDeviceCreateBindGroupLayout", device, descriptor);
    }

    static MemorySegment deviceCreatePipelineLayout(MemorySegment device, MemorySegment descriptor) {
        return create(H.DEVICE_CREATE_PIPELINE_LAYOUT, "wgpuDeviceCreatePipelineLayout", device, descriptor);
    }

    static MemorySegment deviceCreateComputePipeline(MemorySegment device, MemorySegment descriptor) {
        return create(H.DEVICE_CREATE_COMPUTE_PIPELINE, "wgpuDeviceCreateComputePipeline", device, descriptor);
    }

    static MemorySegment deviceCreateBindGroup(MemorySegment device, MemorySegment descriptor) {
        return create(H.DEVICE_CREATE_BIND_GROUP, "wgpuDeviceCreateBindGroup", device, descriptor);
    }

    static MemorySegment deviceCreateCommandEncoder(MemorySegment device) {
        return create(H.DEVICE_CREATE_COMMAND_ENCODER, "wgpuDeviceCreateCommandEncoder", device, MemorySegment.NULL);
    }

    static void devicePushErrorScope(MemorySegment device, int filter) {
        try {
            H.DEVICE_PUSH_ERROR_SCOPE.invokeExact(device, filter);
        } catch (Throwable t) {
            throw failure("wgpuDevicePushErrorScope", t);
        }
    }

    static long devicePopErrorScope(SegmentAllocator a, MemorySegment device, MemorySegment callbackInfo) {
        try {
            MemorySegment f = (MemorySegment) H.DEVICE_POP_ERROR_SCOPE.invokeExact(a, device, callbackInfo);
            return f.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw failure("wgpuDevicePopErrorScope", t);
        }
    }

    static void deviceDestroy(MemorySegment device) {
        release(H.DEVICE_DESTROY, "wgpuDeviceDestroy", device);
    }

    static void deviceRelease(MemorySegment device) {
        release(H.DEVICE_RELEASE, "wgpuDeviceRelease", device);
    }

    // ---- queue ---------------------------------------------------------------------------------------------

    static void queueWriteBuffer(
            MemorySegment queue, MemorySegment buffer, long offset, MemorySegment data, long size) {
        try {
            H.QUEUE_WRITE_BUFFER.invokeExact(queue, buffer, offset, data, size);
        } catch (Throwable t) {
            throw failure("wgpuQueueWriteBuffer", t);
        }
    }

    static void queueSubmit(MemorySegment queue, long count, MemorySegment commandBuffers) {
        try {
            H.QUEUE_SUBMIT.invokeExact(queue, count, commandBuffers);
        } catch (Throwable t) {
            throw failure("wgpuQueueSubmit", t);
        }
    }

    static long queueOnSubmittedWorkDone(SegmentAllocator a, MemorySegment queue, MemorySegment callbackInfo) {
        try {
            MemorySegment f = (MemorySegment) H.QUEUE_ON_SUBMITTED_WORK_DONE.invokeExact(a, queue, callbackInfo);
            return f.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw failure("wgpuQueueOnSubmittedWorkDone", t);
        }
    }

    static void queueRelease(MemorySegment queue) {
        release(H.QUEUE_RELEASE, "wgpuQueueRelease", queue);
    }

    // ---- buffers -------------------------------------------------------------------------------------------

    static long bufferMapAsync(
            SegmentAllocator a, MemorySegment buffer, long mode, long offset, long size, MemorySegment callbackInfo) {
        try {
            MemorySegment f =
                    (MemorySegment) H.BUFFER_MAP_ASYNC.invokeExact(a, buffer, mode, offset, size, callbackInfo);
            return f.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw failure("wgpuBufferMapAsync", t);
        }
    }

    static MemorySegment bufferGetConstMappedRange(MemorySegment buffer, long offset, long size) {
        try {
            return (MemorySegment) H.BUFFER_GET_CONST_MAPPED_RANGE.invokeExact(buffer, offset, size);
        } catch (Throwable t) {
            throw failure("wgpuBufferGetConstMappedRange", t);
        }
    }

    static void bufferUnmap(MemorySegment buffer) {
        release(H.BUFFER_UNMAP, "wgpuBufferUnmap", buffer);
    }

    static void bufferDestroy(MemorySegment buffer) {
        release(H.BUFFER_DESTROY, "wgpuBufferDestroy", buffer);
    }

    static void bufferRelease(MemorySegment buffer) {
        release(H.BUFFER_RELEASE, "wgpuBufferRelease", buffer);
    }

    // ---- shaders, pipelines, bind groups -------------------------------------------------------------------

    static long shaderModuleGetCompilationInfo(SegmentAllocator a, MemorySegment module, MemorySegment callbackInfo) {
        try {
            MemorySegment f = (MemorySegment) H.SHADER_MODULE_GET_COMPILATION_INFO.invokeExact(a, module, callbackInfo);
            return f.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw failure("wgpuShaderModuleGetCompilationInfo", t);
        }
    }

    static void shaderModuleRelease(MemorySegment module) {
        release(H.SHADER_MODULE_RELEASE, "wgpuShaderModuleRelease", module);
    }

    static void bindGroupLayoutRelease(MemorySegment layout) {
        release(H.BIND_GROUP_LAYOUT_RELEASE, "wgpuBindGroupLayoutRelease", layout);
    }

    static void pipelineLayoutRelease(MemorySegment layout) {
        release(H.PIPELINE_LAYOUT_RELEASE, "wgpuPipelineLayoutRelease", layout);
    }

    static void computePipelineRelease(MemorySegment pipeline) {
        release(H.COMPUTE_PIPELINE_RELEASE, "wgpuComputePipelineRelease", pipeline);
    }

    static void bindGroupAddRef(MemorySegment bindGroup) {
        release(H.BIND_GROUP_ADD_REF, "wgpuBindGroupAddRef", bindGroup);
    }

    static void bindGroupRelease(MemorySegment bindGroup) {
        release(H.BIND_GROUP_RELEASE, "wgpuBindGroupRelease", bindGroup);
    }

    // ---- encoding ------------------------------------------------------------------------------------------

    static MemorySegment commandEncoderBeginComputePass(MemorySegment encoder) {
        return create(
                H.COMMAND_ENCODER_BEGIN_COMPUTE_PASS,
                "wgpuCommandEncoderBeginComputePass",
                encoder,
                MemorySegment.NULL);
    }

    static void commandEncoderCopyBufferToBuffer(
            MemorySegment encoder, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        try {
            H.COMMAND_ENCODER_COPY_BUFFER_TO_BUFFER.invokeExact(encoder, src, srcOffset, dst, dstOffset, size);
        } catch (Throwable t) {
            throw failure("wgpuCommandEncoderCopyBufferToBuffer", t);
        }
    }

    static MemorySegment commandEncoderFinish(MemorySegment encoder) {
        return create(H.COMMAND_ENCODER_FINISH, "wgpuCommandEncoderFinish", encoder, MemorySegment.NULL);
    }

    static void commandEncoderRelease(MemorySegment encoder) {
        release(H.COMMAND_ENCODER_RELEASE, "wgpuCommandEncoderRelease", encoder);
    }

    static void commandBufferRelease(MemorySegment commandBuffer) {
        release(H.COMMAND_BUFFER_RELEASE, "wgpuCommandBufferRelease", commandBuffer);
    }

    static void computePassSetPipeline(MemorySegment pass, MemorySegment pipeline) {
        try {
            H.COMPUTE_PASS_SET_PIPELINE.invokeExact(pass, pipeline);
        } catch (Throwable t) {
            throw failure("wgpuComputePassEncoderSetPipeline", t);
        }
    }

    static void computePassSetBindGroup(MemorySegment pass, int index, MemorySegment bindGroup) {
        try {
            H.COMPUTE_PASS_SET_BIND_GROUP.invokeExact(pass, index, bindGroup, 0L, MemorySegment.NULL);
        } catch (Throwable t) {
            throw failure("wgpuComputePassEncoderSetBindGroup", t);
        }
    }

    static void computePassDispatch(MemorySegment pass, int x, int y, int z) {
        try {
            H.COMPUTE_PASS_DISPATCH.invokeExact(pass, x, y, z);
        } catch (Throwable t) {
            throw failure("wgpuComputePassEncoderDispatchWorkgroups", t);
        }
    }

    static void computePassEnd(MemorySegment pass) {
        release(H.COMPUTE_PASS_END, "wgpuComputePassEncoderEnd", pass);
    }

    static void computePassRelease(MemorySegment pass) {
        release(H.COMPUTE_PASS_RELEASE, "wgpuComputePassEncoderRelease", pass);
    }

    // ---- shapes shared by many wrappers --------------------------------------------------------------------

    private static MemorySegment create(MethodHandle handle, String call, MemorySegment a) {
        try {
            return (MemorySegment) handle.invokeExact(a);
        } catch (Throwable t) {
            throw failure(call, t);
        }
    }

    private static MemorySegment create(MethodHandle handle, String call, MemorySegment a, MemorySegment b) {
        try {
            return (MemorySegment) handle.invokeExact(a, b);
        } catch (Throwable t) {
            throw failure(call, t);
        }
    }

    private static void release(MethodHandle handle, String call, MemorySegment object) {
        try {
            handle.invokeExact(object);
        } catch (Throwable t) {
            throw failure(call, t);
        }
    }

    /** The downcall handles; initialised on first use, which {@link #bind()} makes happen right after loading. */
    private static final class H {
        static final MethodHandle CREATE_INSTANCE = fn("wgpuCreateInstance", ADDRESS, ADDRESS);
        static final MethodHandle INSTANCE_REQUEST_ADAPTER =
                fn("wgpuInstanceRequestAdapter", FUTURE, ADDRESS, ADDRESS, CALLBACK_INFO);
        static final MethodHandle INSTANCE_WAIT_ANY =
                fn("wgpuInstanceWaitAny", JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG);
        static final MethodHandle INSTANCE_PROCESS_EVENTS = fn("wgpuInstanceProcessEvents", null, ADDRESS);
        static final MethodHandle INSTANCE_RELEASE = fn("wgpuInstanceRelease", null, ADDRESS);
        static final MethodHandle ADAPTER_GET_INFO = fn("wgpuAdapterGetInfo", JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle ADAPTER_INFO_FREE_MEMBERS = fn("wgpuAdapterInfoFreeMembers", null, ADAPTER_INFO);
        static final MethodHandle ADAPTER_GET_LIMITS = fn("wgpuAdapterGetLimits", JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle ADAPTER_REQUEST_DEVICE =
                fn("wgpuAdapterRequestDevice", FUTURE, ADDRESS, ADDRESS, CALLBACK_INFO);
        static final MethodHandle ADAPTER_RELEASE = fn("wgpuAdapterRelease", null, ADDRESS);
        static final MethodHandle DEVICE_GET_LIMITS = fn("wgpuDeviceGetLimits", JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_GET_QUEUE = fn("wgpuDeviceGetQueue", ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_BUFFER = fn("wgpuDeviceCreateBuffer", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_SHADER_MODULE =
                fn("wgpuDeviceCreateShaderModule", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_BIND_GROUP_LAYOUT =
                fn("wgpuDeviceCreateBindGroupLayout", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_PIPELINE_LAYOUT =
                fn("wgpuDeviceCreatePipelineLayout", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_COMPUTE_PIPELINE =
                fn("wgpuDeviceCreateComputePipeline", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_BIND_GROUP = fn("wgpuDeviceCreateBindGroup", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CREATE_COMMAND_ENCODER =
                fn("wgpuDeviceCreateCommandEncoder", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_PUSH_ERROR_SCOPE = fn("wgpuDevicePushErrorScope", null, ADDRESS, JAVA_INT);
        static final MethodHandle DEVICE_POP_ERROR_SCOPE =
                fn("wgpuDevicePopErrorScope", FUTURE, ADDRESS, CALLBACK_INFO);
        static final MethodHandle DEVICE_DESTROY = fn("wgpuDeviceDestroy", null, ADDRESS);
        static final MethodHandle DEVICE_RELEASE = fn("wgpuDeviceRelease", null, ADDRESS);
        static final MethodHandle QUEUE_WRITE_BUFFER =
                fn("wgpuQueueWriteBuffer", null, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG);
        static final MethodHandle QUEUE_SUBMIT = fn("wgpuQueueSubmit", null, ADDRESS, JAVA_LONG, ADDRESS);
        static final MethodHandle QUEUE_ON_SUBMITTED_WORK_DONE =
                fn("wgpuQueueOnSubmittedWorkDone", FUTURE, ADDRESS, CALLBACK_INFO);
        static final MethodHandle QUEUE_RELEASE = fn("wgpuQueueRelease", null, ADDRESS);
        static final MethodHandle BUFFER_MAP_ASYNC =
                fn("wgpuBufferMapAsync", FUTURE, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, CALLBACK_INFO);
        static final MethodHandle BUFFER_GET_CONST_MAPPED_RANGE =
                fn("wgpuBufferGetConstMappedRange", ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG);
        static final MethodHandle BUFFER_UNMAP = fn("wgpuBufferUnmap", null, ADDRESS);
        static final MethodHandle BUFFER_DESTROY = fn("wgpuBufferDestroy", null, ADDRESS);
        static final MethodHandle BUFFER_RELEASE = fn("wgpuBufferRelease", null, ADDRESS);
        static final MethodHandle SHADER_MODULE_GET_COMPILATION_INFO =
                fn("wgpuShaderModuleGetCompilationInfo", FUTURE, ADDRESS, CALLBACK_INFO);
        static final MethodHandle SHADER_MODULE_RELEASE = fn("wgpuShaderModuleRelease", null, ADDRESS);
        static final MethodHandle BIND_GROUP_LAYOUT_RELEASE = fn("wgpuBindGroupLayoutRelease", null, ADDRESS);
        static final MethodHandle PIPELINE_LAYOUT_RELEASE = fn("wgpuPipelineLayoutRelease", null, ADDRESS);
        static final MethodHandle COMPUTE_PIPELINE_RELEASE = fn("wgpuComputePipelineRelease", null, ADDRESS);
        static final MethodHandle BIND_GROUP_ADD_REF = fn("wgpuBindGroupAddRef", null, ADDRESS);
        static final MethodHandle BIND_GROUP_RELEASE = fn("wgpuBindGroupRelease", null, ADDRESS);
        static final MethodHandle COMMAND_ENCODER_BEGIN_COMPUTE_PASS =
                fn("wgpuCommandEncoderBeginComputePass", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle COMMAND_ENCODER_COPY_BUFFER_TO_BUFFER = fn(
                "wgpuCommandEncoderCopyBufferToBuffer",
                null,
                ADDRESS,
                ADDRESS,
                JAVA_LONG,
                ADDRESS,
                JAVA_LONG,
                JAVA_LONG);
        static final MethodHandle COMMAND_ENCODER_FINISH = fn("wgpuCommandEncoderFinish", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle COMMAND_ENCODER_RELEASE = fn("wgpuCommandEncoderRelease", null, ADDRESS);
        static final MethodHandle COMMAND_BUFFER_RELEASE = fn("wgpuCommandBufferRelease", null, ADDRESS);
        static final MethodHandle COMPUTE_PASS_SET_PIPELINE =
                fn("wgpuComputePassEncoderSetPipeline", null, ADDRESS, ADDRESS);
        static final MethodHandle COMPUTE_PASS_SET_BIND_GROUP =
                fn("wgpuComputePassEncoderSetBindGroup", null, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS);
        static final MethodHandle COMPUTE_PASS_DISPATCH =
                fn("wgpuComputePassEncoderDispatchWorkgroups", null, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle COMPUTE_PASS_END = fn("wgpuComputePassEncoderEnd", null, ADDRESS);
        static final MethodHandle COMPUTE_PASS_RELEASE = fn("wgpuComputePassEncoderRelease", null, ADDRESS);

        private H() {}

        static void touch() {
            // class initialisation has bound every handle above
        }
    }
}
