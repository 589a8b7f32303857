package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;

/**
 * Every struct layout, enum value and callback signature of the one {@code webgpu.h} header generation this
 * backend speaks: upstream webgpu-headers of about February to April 2025, as built into Google Dawn in the npm
 * package {@code bun-webgpu-linux-x64@0.1.7} (x86_64 Linux, LP64). A second generation (for example
 * wgpu-native v27+, whose QueueWorkDone callback gains a message and whose instance descriptor changes) is a
 * change to this file and to the few {@link Callbacks} methods whose parameter lists follow these descriptors.
 *
 * <p>Offsets are derived from the named layouts, never written by hand, so a layout change moves them too.
 */
final class WebGpuHeader {
    private WebGpuHeader() {}

    /** The generation, for diagnostics. */
    static final String GENERATION = "webgpu-headers 2025-Q1 (Dawn, bun-webgpu-linux-x64@0.1.7)";

    // ---- constants ---------------------------------------------------------------------------------------
    static final long STRLEN = -1L; // SIZE_MAX: a NUL-terminated string view
    static final long WHOLE_SIZE = -1L;
    static final long WAIT_FOREVER = -1L; // UINT64_MAX nanoseconds

    static final int CALLBACK_MODE_WAIT_ANY_ONLY = 1;
    static final int CALLBACK_MODE_ALLOW_PROCESS_EVENTS = 2;
    static final int CALLBACK_MODE_ALLOW_SPONTANEOUS = 3;

    /** Success of every asynchronous status enum (RequestAdapter, RequestDevice, MapAsync, QueueWorkDone, ...). */
    static final int STATUS_SUCCESS = 1;

    static final int WAIT_STATUS_SUCCESS = 1;
    static final int WAIT_STATUS_TIMED_OUT = 2;

    static final int STYPE_SHADER_SOURCE_WGSL = 2;

    static final int BACKEND_UNDEFINED = 0;
    static final int BACKEND_VULKAN = 6;
    static final int BACKEND_OPENGL = 7;
    static final int BACKEND_OPENGLES = 8;

    static final int ADAPTER_TYPE_DISCRETE_GPU = 1;
    static final int ADAPTER_TYPE_INTEGRATED_GPU = 2;
    static final int ADAPTER_TYPE_CPU = 3;

    static final int FEATURE_LEVEL_COMPATIBILITY = 1;
    static final int FEATURE_LEVEL_CORE = 2;
    static final int POWER_PREFERENCE_HIGH_PERFORMANCE = 2;

    static final int ERROR_TYPE_NO_ERROR = 1;
    static final int ERROR_TYPE_VALIDATION = 2;
    static final int ERROR_TYPE_OUT_OF_MEMORY = 3;
    static final int ERROR_TYPE_INTERNAL = 4;
    static final int ERROR_FILTER_VALIDATION = 1;
    static final int ERROR_FILTER_OUT_OF_MEMORY = 2;
    static final int ERROR_FILTER_INTERNAL = 3;

    static final int DEVICE_LOST_DESTROYED = 2;
    static final int DEVICE_LOST_INSTANCE_DROPPED = 3;

    static final int COMPILATION_MESSAGE_ERROR = 1;
    static final int COMPILATION_MESSAGE_WARNING = 2;

    static final int BUFFER_BINDING_STORAGE = 3;
    static final int BUFFER_BINDING_READ_ONLY_STORAGE = 4;
    static final int BUFFER_BINDING_UNIFORM = 2;
    static final long SHADER_STAGE_COMPUTE = 0x4;

    static final long BUFFER_USAGE_MAP_READ = 0x1;
    static final long BUFFER_USAGE_COPY_SRC = 0x4;
    static final long BUFFER_USAGE_COPY_DST = 0x8;
    static final long BUFFER_USAGE_UNIFORM = 0x40;
    static final long BUFFER_USAGE_STORAGE = 0x80;
    static final long MAP_MODE_READ = 0x1;

    // ---- by-value and pointed-to structs ---------------------------------------------------------------
    static final StructLayout STRING_VIEW = MemoryLayout.structLayout(
                    ADDRESS.withName("data"), JAVA_LONG.withName("length"))
            .withName("WGPUStringView");

    static final StructLayout FUTURE =
            MemoryLayout.structLayout(JAVA_LONG.withName("id")).withName("WGPUFuture");

    /** Every {@code WGPU*CallbackInfo} that has a mode (all but the uncaptured-error one) has this shape. */
    static final StructLayout CALLBACK_INFO = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    JAVA_INT.withName("mode"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("callback"),
                    ADDRESS.withName("userdata1"),
                    ADDRESS.withName("userdata2"))
            .withName("WGPUCallbackInfo");

    static final StructLayout UNCAPTURED_ERROR_CALLBACK_INFO = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"), ADDRESS.withName("callback"),
                    ADDRESS.withName("userdata1"), ADDRESS.withName("userdata2"))
            .withName("WGPUUncapturedErrorCallbackInfo");

    static final StructLayout INSTANCE_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    MemoryLayout.structLayout(
                                    ADDRESS.withName("nextInChain"), JAVA_INT.withName("timedWaitAnyEnable"),
                                    MemoryLayout.paddingLayout(4), JAVA_LONG.withName("timedWaitAnyMaxCount"))
                            .withName("capabilities"))
            .withName("WGPUInstanceDescriptor");

    static final StructLayout REQUEST_ADAPTER_OPTIONS = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    JAVA_INT.withName("featureLevel"),
                    JAVA_INT.withName("powerPreference"),
                    JAVA_INT.withName("forceFallbackAdapter"),
                    JAVA_INT.withName("backendType"),
                    ADDRESS.withName("compatibleSurface"))
            .withName("WGPURequestAdapterOptions");

    /** Dawn's generation carries the subgroup sizes in the struct itself (96 bytes). */
    static final StructLayout ADAPTER_INFO = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("vendor"),
                    STRING_VIEW.withName("architecture"),
                    STRING_VIEW.withName("device"),
                    STRING_VIEW.withName("description"),
                    JAVA_INT.withName("backendType"),
                    JAVA_INT.withName("adapterType"),
                    JAVA_INT.withName("vendorID"),
                    JAVA_INT.withName("deviceID"),
                    JAVA_INT.withName("subgroupMinSize"),
                    JAVA_INT.withName("subgroupMaxSize"))
            .withName("WGPUAdapterInfo");

    /**
     * The leading, stable part of {@code WGPULimits}; implementations append fields, so a buffer of
     * {@link #LIMITS_BYTES} is handed over and only these are read.
     */
    static final StructLayout LIMITS_PREFIX = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    JAVA_INT.withName("maxTextureDimension1D"),
                    JAVA_INT.withName("maxTextureDimension2D"),
                    JAVA_INT.withName("maxTextureDimension3D"),
                    JAVA_INT.withName("maxTextureArrayLayers"),
                    JAVA_INT.withName("maxBindGroups"),
                    JAVA_INT.withName("maxBindGroupsPlusVertexBuffers"),
                    JAVA_INT.withName("maxBindingsPerBindGroup"),
                    JAVA_INT.withName("maxDynamicUniformBuffersPerPipelineLayout"),
                    JAVA_INT.withName("maxDynamicStorageBuffersPerPipelineLayout"),
                    JAVA_INT.withName("maxSampledTexturesPerShaderStage"),
                    JAVA_INT.withName("maxSamplersPerShaderStage"),
                    JAVA_INT.withName("maxStorageBuffersPerShaderStage"),
                    JAVA_INT.withName("maxStorageTexturesPerShaderStage"),
                    JAVA_INT.withName("maxUniformBuffersPerShaderStage"),
                    JAVA_LONG.withName("maxUniformBufferBindingSize"),
                    JAVA_LONG.withName("maxStorageBufferBindingSize"),
                    JAVA_INT.withName("minUniformBufferOffsetAlignment"),
                    JAVA_INT.withName("minStorageBufferOffsetAlignment"),
                    JAVA_INT.withName("maxVertexBuffers"),
                    MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("maxBufferSize"),
                    JAVA_INT.withName("maxVertexAttributes"),
                    JAVA_INT.withName("maxVertexBufferArrayStride"),
                    JAVA_INT.withName("maxInterStageShaderVariables"),
                    JAVA_INT.withName("maxColorAttachments"),
                    JAVA_INT.withName("maxColorAttachmentBytesPerSample"),
                    JAVA_INT.withName("maxComputeWorkgroupStorageSize"),
                    JAVA_INT.withName("maxComputeInvocationsPerWorkgroup"),
                    JAVA_INT.withName("maxComputeWorkgroupSizeX"),
                    JAVA_INT.withName("maxComputeWorkgroupSizeY"),
                    JAVA_INT.withName("maxComputeWorkgroupSizeZ"),
                    JAVA_INT.withName("maxComputeWorkgroupsPerDimension"))
            .withName("WGPULimits");
    /** Room for {@code WGPULimits} with any fields an implementation appends. */
    static final long LIMITS_BYTES = 512;

    static final StructLayout QUEUE_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"), STRING_VIEW.withName("label"))
            .withName("WGPUQueueDescriptor");

    static final StructLayout DEVICE_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("label"),
                    JAVA_LONG.withName("requiredFeatureCount"),
                    ADDRESS.withName("requiredFeatures"),
                    ADDRESS.withName("requiredLimits"),
                    QUEUE_DESCRIPTOR.withName("defaultQueue"),
                    CALLBACK_INFO.withName("deviceLostCallbackInfo"),
                    UNCAPTURED_ERROR_CALLBACK_INFO.withName("uncapturedErrorCallbackInfo"))
            .withName("WGPUDeviceDescriptor");

    static final StructLayout BUFFER_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("label"),
                    JAVA_LONG.withName("usage"),
                    JAVA_LONG.withName("size"),
                    JAVA_INT.withName("mappedAtCreation"),
                    MemoryLayout.paddingLayout(4))
            .withName("WGPUBufferDescriptor");

    static final StructLayout SHADER_SOURCE_WGSL = MemoryLayout.structLayout(
                    ADDRESS.withName("next"),
                    JAVA_INT.withName("sType"),
                    MemoryLayout.paddingLayout(4),
                    STRING_VIEW.withName("code"))
            .withName("WGPUShaderSourceWGSL");

    static final StructLayout SHADER_MODULE_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"), STRING_VIEW.withName("label"))
            .withName("WGPUShaderModuleDescriptor");

    static final StructLayout COMPILATION_INFO = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"), JAVA_LONG.withName("messageCount"), ADDRESS.withName("messages"))
            .withName("WGPUCompilationInfo");

    static final StructLayout COMPILATION_MESSAGE = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("message"),
                    JAVA_INT.withName("type"),
                    MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("lineNum"),
                    JAVA_LONG.withName("linePos"),
                    JAVA_LONG.withName("offset"),
                    JAVA_LONG.withName("length"))
            .withName("WGPUCompilationMessage");

    /**
     * {@code WGPUBindGroupLayoutEntry} with its buffer member filled; sampler/texture/storage-texture unused
     * (zero). Dawn's generation has {@code bindingArraySize} after {@code visibility} (0 means "not an array").
     */
    static final StructLayout BIND_GROUP_LAYOUT_ENTRY = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    JAVA_INT.withName("binding"),
                    MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("visibility"),
                    JAVA_INT.withName("bindingArraySize"),
                    MemoryLayout.paddingLayout(4),
                    MemoryLayout.structLayout(
                                    ADDRESS.withName("nextInChain"),
                                    JAVA_INT.withName("type"),
                                    JAVA_INT.withName("hasDynamicOffset"),
                                    JAVA_LONG.withName("minBindingSize"))
                            .withName("buffer"),
                    MemoryLayout.structLayout(
                                    ADDRESS.withName("nextInChain"),
                                    JAVA_INT.withName("type"),
                                    MemoryLayout.paddingLayout(4))
                            .withName("sampler"),
                    MemoryLayout.structLayout(
                                    ADDRESS.withName("nextInChain"),
                                    JAVA_INT.withName("sampleType"),
                                    JAVA_INT.withName("viewDimension"),
                                    JAVA_INT.withName("multisampled"),
                                    MemoryLayout.paddingLayout(4))
                            .withName("texture"),
                    MemoryLayout.structLayout(
                                    ADDRESS.withName("nextInChain"),
                                    JAVA_INT.withName("access"),
                                    JAVA_INT.withName("format"),
                                    JAVA_INT.withName("viewDimension"),
                                    MemoryLayout.paddingLayout(4))
                            .withName("storageTexture"))
            .withName("WGPUBindGroupLayoutEntry");

    static final StructLayout BIND_GROUP_LAYOUT_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("label"),
                    JAVA_LONG.withName("entryCount"),
                    ADDRESS.withName("entries"))
            .withName("WGPUBindGroupLayoutDescriptor");

    /** Dawn's generation ends with {@code immediateSize} (0: no immediate data). */
    static final StructLayout PIPELINE_LAYOUT_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("label"),
                    JAVA_LONG.withName("bindGroupLayoutCount"),
                    ADDRESS.withName("bindGroupLayouts"),
                    JAVA_INT.withName("immediateSize"),
                    MemoryLayout.paddingLayout(4))
            .withName("WGPUPipelineLayoutDescriptor");

    static final StructLayout COMPUTE_PIPELINE_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("label"),
                    ADDRESS.withName("layout"),
                    MemoryLayout.structLayout(
                                    ADDRESS.withName("nextInChain"),
                                    ADDRESS.withName("module"),
                                    STRING_VIEW.withName("entryPoint"),
                                    JAVA_LONG.withName("constantCount"),
                                    ADDRESS.withName("constants"))
                            .withName("compute"))
            .withName("WGPUComputePipelineDescriptor");

    static final StructLayout BIND_GROUP_ENTRY = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    JAVA_INT.withName("binding"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("buffer"),
                    JAVA_LONG.withName("offset"),
                    JAVA_LONG.withName("size"),
                    ADDRESS.withName("sampler"),
                    ADDRESS.withName("textureView"))
            .withName("WGPUBindGroupEntry");

    static final StructLayout BIND_GROUP_DESCRIPTOR = MemoryLayout.structLayout(
                    ADDRESS.withName("nextInChain"),
                    STRING_VIEW.withName("label"),
                    ADDRESS.withName("layout"),
                    JAVA_LONG.withName("entryCount"),
                    ADDRESS.withName("entries"))
            .withName("WGPUBindGroupDescriptor");

    static final StructLayout FUTURE_WAIT_INFO = MemoryLayout.structLayout(
                    FUTURE.withName("future"), JAVA_INT.withName("completed"), MemoryLayout.paddingLayout(4))
            .withName("WGPUFutureWaitInfo");

    // ---- offsets (derived) -------------------------------------------------------------------------------
    static final long SV_DATA = off(STRING_VIEW, "data");
    static final long SV_LENGTH = off(STRING_VIEW, "length");

    static final long CBI_MODE = off(CALLBACK_INFO, "mode");
    static final long CBI_CALLBACK = off(CALLBACK_INFO, "callback");
    static final long CBI_USERDATA1 = off(CALLBACK_INFO, "userdata1");
    static final long CBI_USERDATA2 = off(CALLBACK_INFO, "userdata2");

    static final long INSTANCE_TIMED_WAIT_ENABLE = off(INSTANCE_DESCRIPTOR, "capabilities", "timedWaitAnyEnable");
    static final long INSTANCE_TIMED_WAIT_MAX_COUNT = off(INSTANCE_DESCRIPTOR, "capabilities", "timedWaitAnyMaxCount");

    static final long RAO_FEATURE_LEVEL = off(REQUEST_ADAPTER_OPTIONS, "featureLevel");
    static final long RAO_POWER_PREFERENCE = off(REQUEST_ADAPTER_OPTIONS, "powerPreference");
    static final long RAO_FORCE_FALLBACK = off(REQUEST_ADAPTER_OPTIONS, "forceFallbackAdapter");
    static final long RAO_BACKEND_TYPE = off(REQUEST_ADAPTER_OPTIONS, "backendType");

    static final long AI_VENDOR = off(ADAPTER_INFO, "vendor");
    static final long AI_ARCHITECTURE = off(ADAPTER_INFO, "architecture");
    static final long AI_DEVICE = off(ADAPTER_INFO, "device");
    static final long AI_DESCRIPTION = off(ADAPTER_INFO, "description");
    static final long AI_BACKEND_TYPE = off(ADAPTER_INFO, "backendType");
    static final long AI_ADAPTER_TYPE = off(ADAPTER_INFO, "adapterType");

    static final long LIM_MAX_STORAGE_BUFFERS_PER_STAGE = off(LIMITS_PREFIX, "maxStorageBuffersPerShaderStage");
    static final long LIM_MAX_STORAGE_BINDING_SIZE = off(LIMITS_PREFIX, "maxStorageBufferBindingSize");
    static final long LIM_MIN_STORAGE_OFFSET_ALIGNMENT = off(LIMITS_PREFIX, "minStorageBufferOffsetAlignment");
    static final long LIM_MAX_BUFFER_SIZE = off(LIMITS_PREFIX, "maxBufferSize");
    static final long LIM_MAX_INVOCATIONS_PER_WORKGROUP = off(LIMITS_PREFIX, "maxComputeInvocationsPerWorkgroup");
    static final long LIM_MAX_WORKGROUPS_PER_DIMENSION = off(LIMITS_PREFIX, "maxComputeWorkgroupsPerDimension");
    static final long LIM_MAX_WORKGROUP_SIZE_X = off(LIMITS_PREFIX, "maxComputeWorkgroupSizeX");
    static final long LIM_MAX_WORKGROUP_SIZE_Y = off(LIMITS_PREFIX, "maxComputeWorkgroupSizeY");
    static final long LIM_MAX_WORKGROUP_SIZE_Z = off(LIMITS_PREFIX, "maxComputeWorkgroupSizeZ");

    static final long DD_LABEL = off(DEVICE_DESCRIPTOR, "label");
    static final long DD_REQUIRED_LIMITS = off(DEVICE_DESCRIPTOR, "requiredLimits");
    static final long DD_QUEUE_LABEL = off(DEVICE_DESCRIPTOR, "defaultQueue", "label");
    static final long DD_LOST_MODE = off(DEVICE_DESCRIPTOR, "deviceLostCallbackInfo", "mode");
    static final long DD_LOST_CALLBACK = off(DEVICE_DESCRIPTOR, "deviceLostCallbackInfo", "callback");
    static final long DD_LOST_USERDATA1 = off(DEVICE_DESCRIPTOR, "deviceLostCallbackInfo", "userdata1");
    static final long DD_LOST_USERDATA2 = off(DEVICE_DESCRIPTOR, "deviceLostCallbackInfo", "userdata2");
    static final long DD_ERROR_CALLBACK = off(DEVICE_DESCRIPTOR, "uncapturedErrorCallbackInfo", "callback");
    static final long DD_ERROR_USERDATA1 = off(DEVICE_DESCRIPTOR, "uncapturedErrorCallbackInfo", "userdata1");
    static final long DD_ERROR_USERDATA2 = off(DEVICE_DESCRIPTOR, "uncapturedErrorCallbackInfo", "userdata2");

    static final long BD_LABEL = off(BUFFER_DESCRIPTOR, "label");
    static final long BD_USAGE = off(BUFFER_DESCRIPTOR, "usage");
    static final long BD_SIZE = off(BUFFER_DESCRIPTOR, "size");

    static final long WGSL_STYPE = off(SHADER_SOURCE_WGSL, "sType");
    static final long WGSL_CODE = off(SHADER_SOURCE_WGSL, "code");
    static final long SMD_LABEL = off(SHADER_MODULE_DESCRIPTOR, "label");

    static final long CI_MESSAGE_COUNT = off(COMPILATION_INFO, "messageCount");
    static final long CI_MESSAGES = off(COMPILATION_INFO, "messages");
    static final long CM_MESSAGE = off(COMPILATION_MESSAGE, "message");
    static final long CM_TYPE = off(COMPILATION_MESSAGE, "type");
    static final long CM_LINE = off(COMPILATION_MESSAGE, "lineNum");
    static final long CM_COLUMN = off(COMPILATION_MESSAGE, "linePos");

    static final long BGLE_BINDING = off(BIND_GROUP_LAYOUT_ENTRY, "binding");
    static final long BGLE_VISIBILITY = off(BIND_GROUP_LAYOUT_ENTRY, "visibility");
    static final long BGLE_BUFFER_TYPE = off(BIND_GROUP_LAYOUT_ENTRY, "buffer", "type");
    static final long BGLD_LABEL = off(BIND_GROUP_LAYOUT_DESCRIPTOR, "label");
    static final long BGLD_ENTRY_COUNT = off(BIND_GROUP_LAYOUT_DESCRIPTOR, "entryCount");
    static final long BGLD_ENTRIES = off(BIND_GROUP_LAYOUT_DESCRIPTOR, "entries");
    static final long PLD_LABEL = off(PIPELINE_LAYOUT_DESCRIPTOR, "label");
    static final long PLD_COUNT = off(PIPELINE_LAYOUT_DESCRIPTOR, "bindGroupLayoutCount");
    static final long PLD_LAYOUTS = off(PIPELINE_LAYOUT_DESCRIPTOR, "bindGroupLayouts");

    static final long CPD_LABEL = off(COMPUTE_PIPELINE_DESCRIPTOR, "label");
    static final long CPD_LAYOUT = off(COMPUTE_PIPELINE_DESCRIPTOR, "layout");
    static final long CPD_MODULE = off(COMPUTE_PIPELINE_DESCRIPTOR, "compute", "module");
    static final long CPD_ENTRY_POINT = off(COMPUTE_PIPELINE_DESCRIPTOR, "compute", "entryPoint");

    static final long BGE_BINDING = off(BIND_GROUP_ENTRY, "binding");
    static final long BGE_BUFFER = off(BIND_GROUP_ENTRY, "buffer");
    static final long BGE_OFFSET = off(BIND_GROUP_ENTRY, "offset");
    static final long BGE_SIZE = off(BIND_GROUP_ENTRY, "size");
    static final long BGD_LABEL = off(BIND_GROUP_DESCRIPTOR, "label");
    static final long BGD_LAYOUT = off(BIND_GROUP_DESCRIPTOR, "layout");
    static final long BGD_ENTRY_COUNT = off(BIND_GROUP_DESCRIPTOR, "entryCount");
    static final long BGD_ENTRIES = off(BIND_GROUP_DESCRIPTOR, "entries");

    static final long FWI_FUTURE = off(FUTURE_WAIT_INFO, "future");
    static final long FWI_COMPLETED = off(FUTURE_WAIT_INFO, "completed");

    // ---- callback signatures (upcalls); parameter lists match the methods of Callbacks ------------------
    /** {@code (status, WGPUAdapter|WGPUDevice, WGPUStringView message, userdata1, userdata2)}. */
    static final FunctionDescriptor REQUEST_CALLBACK =
            FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, STRING_VIEW, ADDRESS, ADDRESS);
    /**
     * {@code (status, WGPUStringView message, userdata1, userdata2)}: Dawn's build already passes the message that
     * upstream webgpu-headers added with #528 (verified: without it {@code userdata1} receives the message pointer).
     */
    static final FunctionDescriptor QUEUE_WORK_DONE_CALLBACK =
            FunctionDescriptor.ofVoid(JAVA_INT, STRING_VIEW, ADDRESS, ADDRESS);
    /** {@code (status, WGPUStringView message, userdata1, userdata2)}. */
    static final FunctionDescriptor BUFFER_MAP_CALLBACK =
            FunctionDescriptor.ofVoid(JAVA_INT, STRING_VIEW, ADDRESS, ADDRESS);
    /** {@code (status, WGPUErrorType, WGPUStringView message, userdata1, userdata2)}. */
    static final FunctionDescriptor POP_ERROR_SCOPE_CALLBACK =
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT, STRING_VIEW, ADDRESS, ADDRESS);
    /** {@code (status, WGPUCompilationInfo const*, userdata1, userdata2)}. */
    static final FunctionDescriptor COMPILATION_INFO_CALLBACK =
            FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    /** {@code (WGPUDevice const*, WGPUErrorType|WGPUDeviceLostReason, WGPUStringView message, userdata1, userdata2)}. */
    static final FunctionDescriptor DEVICE_EVENT_CALLBACK =
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, STRING_VIEW, ADDRESS, ADDRESS);

    static String errorTypeName(int type) {
        return switch (type) {
            case ERROR_TYPE_NO_ERROR -> "NoError";
            case ERROR_TYPE_VALIDATION -> "Validation";
            case ERROR_TYPE_OUT_OF_MEMORY -> "OutOfMemory";
            case ERROR_TYPE_INTERNAL -> "Internal";
            default -> "Unknown";
        };
    }

    static String backendTypeName(int type) {
        return switch (type) {
            case 1 -> "Null";
            case 2 -> "WebGPU";
            case 3 -> "D3D11";
            case 4 -> "D3D12";
            case 5 -> "Metal";
            case BACKEND_VULKAN -> "Vulkan";
            case BACKEND_OPENGL -> "OpenGL";
            case BACKEND_OPENGLES -> "OpenGLES";
            default -> "Undefined";
        };
    }

    static String adapterTypeName(int type) {
        return switch (type) {
            case ADAPTER_TYPE_DISCRETE_GPU -> "discrete GPU";
            case ADAPTER_TYPE_INTEGRATED_GPU -> "integrated GPU";
            case ADAPTER_TYPE_CPU -> "CPU";
            default -> "unknown";
        };
    }

    private static long off(StructLayout layout, String... path) {
        PathElement[] elements = new PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }
}
