package dev.graphrt.backend.wgpu;

import static dev.graphrt.backend.wgpu.WebGpuHeader.CI_MESSAGES;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CI_MESSAGE_COUNT;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CM_COLUMN;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CM_LINE;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CM_MESSAGE;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CM_TYPE;
import static dev.graphrt.backend.wgpu.WebGpuHeader.COMPILATION_MESSAGE;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native callbacks: one upcall stub per callback signature for the JVM's life (an upcall stub must outlive
 * every native call that may still fire it), each finding its Java receiver through the userdata words:
 * {@code userdata2} names the {@link CallbackRegistry} of the device (or the instance) that asked, {@code userdata1}
 * the entry in it. So any number of requests, fences and devices can be in flight at once, and what a device
 * registered goes away with it. The stubs are this class's only static state; the routing table they look
 * registries up in is the process's ({@link WebGpuProcess}). An upcall never throws into native code: failures
 * are logged.
 */
@SuppressWarnings("restricted") // raw native addresses and libraries are this class's job
final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);

    private Callbacks() {}

    /** What a one-shot asynchronous call reported; filled by the callback, read after {@link #done}. */
    static final class Completion {
        final Kind kind;
        volatile boolean done;
        int status;
        int errorType;
        MemorySegment object = MemorySegment.NULL;
        String message = "";
        List<CompilationMessage> messages = List.of();

        Completion(Kind kind) {
            this.kind = kind;
        }

        boolean succeeded() {
            return done && status == WebGpuHeader.STATUS_SUCCESS;
        }

        /** Finishes the completion without its callback (its instance went away first). */
        void fail(int failureStatus, String why) {
            status = failureStatus;
            message = why;
            done = true;
        }
    }

    /** One line of a shader compilation log. */
    record CompilationMessage(int type, long line, long column, String text) {
        boolean isError() {
            return type == WebGpuHeader.COMPILATION_MESSAGE_ERROR;
        }

        @Override
        public String toString() {
            String kind = switch (type) {
                case WebGpuHeader.COMPILATION_MESSAGE_ERROR -> "error";
                case WebGpuHeader.COMPILATION_MESSAGE_WARNING -> "warning";
                default -> "info";
            };
            return (line > 0 ? line + ":" + column + ": " : "") + kind + ": " + text;
        }
    }

    /** Receiver of a device's uncaptured errors and loss. Called on any thread. */
    interface DeviceEvents {
        void uncapturedError(int type, String message);

        void deviceLost(int reason, String message);
    }

    /** Kinds of one-shot callback, each with its own stub. */
    enum Kind {
        REQUEST,
        WORK_DONE,
        MAP,
        POP_ERROR_SCOPE,
        COMPILATION_INFO
    }

    /** The registry named by a callback's {@code userdata2}, or {@code null} once its device is closed. */
    static CallbackRegistry registry(MemorySegment userdata2) {
        return WebGpuProcess.registry(userdata2.address());
    }

    /** The stub for one-shot callbacks of {@code kind}. */
    static MemorySegment stub(Kind kind) {
        return switch (kind) {
            case REQUEST -> Stubs.REQUEST;
            case WORK_DONE -> Stubs.WORK_DONE;
            case MAP -> Stubs.MAP;
            case POP_ERROR_SCOPE -> Stubs.POP_ERROR_SCOPE;
            case COMPILATION_INFO -> Stubs.COMPILATION_INFO;
        };
    }

    static MemorySegment uncapturedErrorStub() {
        return Stubs.UNCAPTURED_ERROR;
    }

    static MemorySegment deviceLostStub() {
        return Stubs.DEVICE_LOST;
    }

    /** Text of a {@code WGPUStringView} passed by value or pointed to. */
    static String string(MemorySegment view) {
        MemorySegment data = view.get(ADDRESS, WebGpuHeader.SV_DATA);
        long length = view.get(JAVA_LONG, WebGpuHeader.SV_LENGTH);
        if (data.address() == 0 || length == 0) {
            return "";
        }
        if (length == WebGpuHeader.STRLEN) {
            return data.reinterpret(Long.MAX_VALUE).getString(0, StandardCharsets.UTF_8);
        }
        return new String(data.reinterpret(length).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private static Completion take(MemorySegment userdata1, MemorySegment userdata2) {
        CallbackRegistry registry = registry(userdata2);
        if (registry == null) {
            // its device closed and failed its requests already; the driver's late cancellation is expected
            LOG.debug(
                    "webgpu callback for request {} of registry {}, which is closed",
                    userdata1.address(),
                    userdata2.address());
            return null;
        }
        Completion c = registry.take(userdata1.address());
        if (c == null) {
            LOG.warn("webgpu callback for unknown request {} of {}", userdata1.address(), registry);
        }
        return c;
    }

    private static DeviceEvents device(MemorySegment userdata1, MemorySegment userdata2) {
        CallbackRegistry registry = registry(userdata2);
        return registry == null ? null : registry.device(userdata1.address());
    }

    // ---- upcall targets ------------------------------------------------------------------------------------

    @SuppressWarnings("UnusedMethod") // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onRequest(
            int status, MemorySegment object, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        complete(u1, u2, status, object, 0, message, "request");
    }

    @SuppressWarnings("UnusedMethod") // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onWorkDone(int status, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        complete(u1, u2, status, MemorySegment.NULL, 0, message, "work-done");
    }

    @SuppressWarnings("UnusedMethod") // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onMap(int status, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        complete(u1, u2, status, MemorySegment.NULL, 0, message, "map");
    }

    @SuppressWarnings("UnusedMethod") // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onPopErrorScope(
            int status, int type, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        complete(u1, u2, status, MemorySegment.NULL, type, message, "error-scope");
    }

    /** Fills and finishes the completion registered under {@code u1}; an upcall must never throw into native code. */
    private static void complete(
            MemorySegment u1,
            MemorySegment u2,
            int status,
            MemorySegment object,
            int errorType,
            MemorySegment message,
            String what) {
        try {
            Completion c = take(u1, u2);
            if (c != null) {
                c.status = status;
                c.object = object;
                c.errorType = errorType;
                c.message = string(message);
                c.done = true;
            }
        } catch (Throwable t) {
            LOG.error("webgpu {} callback failed", what, t);
        }
    }

    @SuppressWarnings("UnusedMethod") // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onCompilationInfo(int status, MemorySegment info, MemorySegment u1, MemorySegment u2) {
        try {
            Completion c = take(u1, u2);
            if (c == null) {
                return;
            }
            c.status = status;
            if (info.address() != 0) {
                MemorySegment ci = info.reinterpret(WebGpuHeader.COMPILATION_INFO.byteSize());
                long count = ci.get(JAVA_LONG, CI_MESSAGE_COUNT);
                MemorySegment all = ci.get(ADDRESS, CI_MESSAGES).reinterpret(count * COMPILATION_MESSAGE.byteSize());
                List<CompilationMessage> list = new ArrayList<>();
                for (long i = 0; i < count; i++) {
                    MemorySegment m = all.asSlice(i * COMPILATION_MESSAGE.byteSize(), COMPILATION_MESSAGE.byteSize());
                    list.add(new CompilationMessage(
                            m.get(JAVA_INT, CM_TYPE),
                            m.get(JAVA_LONG, CM_LINE),
                            m.get(JAVA_LONG, CM_COLUMN),
                            string(m.asSlice(CM_MESSAGE, WebGpuHeader.STRING_VIEW.byteSize()))));
                }
                c.messages = List.copyOf(list);
            }
            c.done = true;
        } catch (Throwable t) {
            LOG.error("webgpu compilation-info callback failed", t);
        }
    }

    @SuppressWarnings({"UnusedMethod", "UnusedVariable"
    }) // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onUncapturedError(
            MemorySegment device, int type, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        try {
            DeviceEvents events = device(u1, u2);
            String text = string(message);
            if (events != null) {
                events.uncapturedError(type, text);
            } else {
                LOG.warn("webgpu uncaptured {} error on an unknown device: {}", WebGpuHeader.errorTypeName(type), text);
            }
        } catch (Throwable t) {
            LOG.error("webgpu uncaptured-error callback failed", t);
        }
    }

    @SuppressWarnings({"UnusedMethod", "UnusedVariable"
    }) // an upcall target, bound by name in stub(); its parameters are the C callback's
    private static void onDeviceLost(
            MemorySegment device, int reason, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        try {
            DeviceEvents events = device(u1, u2);
            String text = string(message);
            if (events != null) {
                events.deviceLost(reason, text);
            } else {
                LOG.debug("webgpu device lost (reason {}) after it was closed: {}", reason, text);
            }
        } catch (Throwable t) {
            LOG.error("webgpu device-lost callback failed", t);
        }
    }

    /** The stubs, made on first use (after the library is loaded; they do not depend on it). */
    private static final class Stubs {
        static final MemorySegment REQUEST = stub("onRequest", WebGpuHeader.REQUEST_CALLBACK);
        static final MemorySegment WORK_DONE = stub("onWorkDone", WebGpuHeader.QUEUE_WORK_DONE_CALLBACK);
        static final MemorySegment MAP = stub("onMap", WebGpuHeader.BUFFER_MAP_CALLBACK);
        static final MemorySegment POP_ERROR_SCOPE = stub("onPopErrorScope", WebGpuHeader.POP_ERROR_SCOPE_CALLBACK);
        static final MemorySegment COMPILATION_INFO = stub("onCompilationInfo", WebGpuHeader.COMPILATION_INFO_CALLBACK);
        static final MemorySegment UNCAPTURED_ERROR = stub("onUncapturedError", WebGpuHeader.DEVICE_EVENT_CALLBACK);
        static final MemorySegment DEVICE_LOST = stub("onDeviceLost", WebGpuHeader.DEVICE_EVENT_CALLBACK);

        private Stubs() {}

        private static MemorySegment stub(String method, FunctionDescriptor descriptor) {
            try {
                MethodType type = descriptor.toMethodType();
                return NativeLibrary.linker()
                        .upcallStub(
                                MethodHandles.lookup().findStatic(Callbacks.class, method, type),
                                descriptor,
                                Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("callback " + method + " does not match its descriptor", e);
            }
        }
    }
}
