package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.KernelCompiler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Compiles WGSL into compute pipelines. The shader module's compilation messages become the log of a
 * {@link KernelCompilationException}; pipeline creation runs inside a validation error scope so a missing entry
 * point or a bad binding fails here, not at the first launch. Pipelines are cached by (text, entry point).
 */
final class WgpuCompiler implements KernelCompiler {
    private final WgpuDevice device;
    private final Map<String, WgpuKernel> cache = new HashMap<>();

    WgpuCompiler(WgpuDevice device) {
        this.device = device;
    }

    @Override
    public List<Dialect> dialects() {
        return List.of(Dialect.WGSL);
    }

    @Override
    public CompiledKernel compile(KernelSource source) {
        Objects.requireNonNull(source, "source");
        String entry = source.entryPoint();
        String text = source.text(Dialect.WGSL)
                .orElseThrow(() -> new KernelCompilationException(
                        "wgpu backend compiles " + dialects() + " but " + source + " offers none of them", ""));
        String key = entry + '\u0000' + text;
        device.lock.lock();
        try {
            device.checkUsable();
            WgpuKernel cached = cache.get(key);
            if (cached != null) {
                return cached;
            }
            WgslBindings bindings = WgslBindings.parse(entry, text);
            WgpuKernel kernel = build(entry, text, bindings);
            cache.put(key, kernel);
            return kernel;
        } finally {
            device.lock.unlock();
        }
    }

    private WgpuKernel build(String entry, String text, WgslBindings bindings) {
        device.attribute(null, "wgpuDeviceCreateShaderModule");
        device.pushErrorScopes(WebGpuHeader.ERROR_FILTER_VALIDATION, WebGpuHeader.ERROR_FILTER_INTERNAL);
        MemorySegment module = MemorySegment.NULL;
        MemorySegment layout = MemorySegment.NULL;
        MemorySegment pipelineLayout = MemorySegment.NULL;
        MemorySegment pipeline = MemorySegment.NULL;
        List<Callbacks.CompilationMessage> messages = List.of();
        boolean scopesOpen = true;
        try (Arena a = Arena.ofConfined()) {
            module = createModule(a, text);
            messages = compilationMessages(module);
            if (messages.stream().anyMatch(Callbacks.CompilationMessage::isError)) {
                device.popErrorScopes(2);
                scopesOpen = false;
                throw new KernelCompilationException("WGSL kernel '" + entry + "' does not compile", log(messages));
            }
            layout = createBindGroupLayout(a, bindings);
            pipelineLayout = createPipelineLayout(a, layout);
            pipeline = createPipeline(a, pipelineLayout, module, entry);
            List<WgpuDevice.ScopedError> errors = device.popErrorScopes(2);
            scopesOpen = false;
            if (!errors.isEmpty()) {
                String log =
                        errors.stream().map(WgpuDevice.ScopedError::message).collect(Collectors.joining("\n"));
                if (!messages.isEmpty()) {
                    log = log + "\n" + log(messages);
                }
                throw new KernelCompilationException("WGSL kernel '" + entry + "': pipeline creation failed", log);
            }
            WgpuKernel kernel = new WgpuKernel(
                    device, entry, pipeline, layout, bindings.numbers(), WgslWorkgroupSize.of(entry, text));
            pipeline = MemorySegment.NULL;
            layout = MemorySegment.NULL;
            return kernel;
        } finally {
            if (scopesOpen) {
                device.popErrorScopes(2);
            }
            releaseIfSet(pipeline, Wgpu::computePipelineRelease);
            releaseIfSet(pipelineLayout, Wgpu::pipelineLayoutRelease);
            releaseIfSet(layout, Wgpu::bindGroupLayoutRelease);
            releaseIfSet(module, Wgpu::shaderModuleRelease);
        }
    }

    private MemorySegment createModule(Arena a, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        MemorySegment code = a.allocate(bytes.length + 1L);
        MemorySegment.copy(bytes, 0, code, JAVA_BYTE, 0, bytes.length);
        MemorySegment wgsl = a.allocate(WebGpuHeader.SHADER_SOURCE_WGSL);
        wgsl.set(JAVA_INT, WebGpuHeader.WGSL_STYPE, WebGpuHeader.STYPE_SHADER_SOURCE_WGSL);
        wgsl.set(ADDRESS, WebGpuHeader.WGSL_CODE + WebGpuHeader.SV_DATA, code);
        wgsl.set(JAVA_LONG, WebGpuHeader.WGSL_CODE + WebGpuHeader.SV_LENGTH, bytes.length);
        MemorySegment d = a.allocate(WebGpuHeader.SHADER_MODULE_DESCRIPTOR);
        d.set(ADDRESS, 0, wgsl);
        WgpuDevice.nullLabel(d, WebGpuHeader.SMD_LABEL);
        return Wgpu.deviceCreateShaderModule(device.device, d);
    }

    private List<Callbacks.CompilationMessage> compilationMessages(MemorySegment module) {
        Callbacks.Completion c = device.prepare(Callbacks.Kind.COMPILATION_INFO);
        long future = Wgpu.shaderModuleGetCompilationInfo(
                device.instance.futureSlot(), module, device.instance.callbackInfo());
        device.instance.await(c, future);
        return c.messages;
    }

    private MemorySegment createBindGroupLayout(Arena a, WgslBindings bindings) {
        int[] numbers = bindings.numbers();
        long stride = WebGpuHeader.BIND_GROUP_LAYOUT_ENTRY.byteSize();
        MemorySegment entries = a.allocate(WebGpuHeader.BIND_GROUP_LAYOUT_ENTRY, Math.max(1, numbers.length));
        for (int i = 0; i < numbers.length; i++) {
            MemorySegment e = entries.asSlice(i * stride, stride);
            e.set(JAVA_INT, WebGpuHeader.BGLE_BINDING, numbers[i]);
            e.set(JAVA_LONG, WebGpuHeader.BGLE_VISIBILITY, WebGpuHeader.SHADER_STAGE_COMPUTE);
            e.set(JAVA_INT, WebGpuHeader.BGLE_BUFFER_TYPE, bindings.types().get(numbers[i]));
        }
        MemorySegment d = a.allocate(WebGpuHeader.BIND_GROUP_LAYOUT_DESCRIPTOR);
        WgpuDevice.nullLabel(d, WebGpuHeader.BGLD_LABEL);
        d.set(JAVA_LONG, WebGpuHeader.BGLD_ENTRY_COUNT, numbers.length);
        d.set(ADDRESS, WebGpuHeader.BGLD_ENTRIES, entries);
        device.call("wgpuDeviceCreateBindGroupLayout");
        return Wgpu.deviceCreateBindGroupLayout(device.device, d);
    }

    private MemorySegment createPipelineLayout(Arena a, MemorySegment bindGroupLayout) {
        MemorySegment layouts = a.allocate(ADDRESS);
        layouts.set(ADDRESS, 0, bindGroupLayout);
        MemorySegment d = a.allocate(WebGpuHeader.PIPELINE_LAYOUT_DESCRIPTOR);
        WgpuDevice.nullLabel(d, WebGpuHeader.PLD_LABEL);
        d.set(JAVA_LONG, WebGpuHeader.PLD_COUNT, 1L);
        d.set(ADDRESS, WebGpuHeader.PLD_LAYOUTS, layouts);
        device.call("wgpuDeviceCreatePipelineLayout");
        return Wgpu.deviceCreatePipelineLayout(device.device, d);
    }

    private MemorySegment createPipeline(Arena a, MemorySegment pipelineLayout, MemorySegment module, String entry) {
        MemorySegment name = a.allocateFrom(entry, StandardCharsets.UTF_8);
        MemorySegment d = a.allocate(WebGpuHeader.COMPUTE_PIPELINE_DESCRIPTOR);
        WgpuDevice.nullLabel(d, WebGpuHeader.CPD_LABEL);
        d.set(ADDRESS, WebGpuHeader.CPD_LAYOUT, pipelineLayout);
        d.set(ADDRESS, WebGpuHeader.CPD_MODULE, module);
        d.set(ADDRESS, WebGpuHeader.CPD_ENTRY_POINT + WebGpuHeader.SV_DATA, name);
        d.set(
                JAVA_LONG,
                WebGpuHeader.CPD_ENTRY_POINT + WebGpuHeader.SV_LENGTH,
                entry.getBytes(StandardCharsets.UTF_8).length);
        device.call("wgpuDeviceCreateComputePipeline");
        return Wgpu.deviceCreateComputePipeline(device.device, d);
    }

    private static String log(List<Callbacks.CompilationMessage> messages) {
        List<String> lines = new ArrayList<>();
        for (Callbacks.CompilationMessage m : messages) {
            lines.add(m.toString());
        }
        return String.join("\n", lines);
    }

    private static void releaseIfSet(MemorySegment object, Consumer<MemorySegment> release) {
        if (object.address() != 0) {
            release.accept(object);
        }
    }

    /** Releases every cached pipeline (backend close). Caller holds the lock. */
    void releaseAll() {
        for (WgpuKernel k : cache.values()) {
            k.release();
        }
        cache.clear();
    }
}
