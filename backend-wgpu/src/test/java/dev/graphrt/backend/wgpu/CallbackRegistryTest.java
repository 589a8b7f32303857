package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** A device's callback registry; needs no webgpu library (the stubs do not depend on it). */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CallbackRegistryTest {

    @Test
    void closing_fails_and_removes_every_outstanding_completion() {
        CallbackRegistry registry = new CallbackRegistry();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(WebGpuHeader.CALLBACK_INFO);
            Callbacks.Completion first = registry.prepare(info, Callbacks.Kind.WORK_DONE);
            Callbacks.Completion second = registry.prepare(info, Callbacks.Kind.MAP);
            assertThat(registry.outstanding()).isEqualTo(2);

            registry.close();

            assertThat(registry.outstanding()).isZero();
            for (Callbacks.Completion c : new Callbacks.Completion[] {first, second}) {
                assertThat(c.done).isTrue();
                assertThat(c.succeeded()).isFalse();
                assertThat(c.status).isEqualTo(CallbackRegistry.STATUS_CLOSED);
                assertThat(c.message).contains("closed");
            }
        }
    }

    @Test
    void a_closed_registry_is_no_longer_routed_to_and_refuses_new_requests() {
        CallbackRegistry registry = new CallbackRegistry();
        MemorySegment name = MemorySegment.ofAddress(registry.id());
        assertThat(Callbacks.registry(name)).isSameAs(registry);

        registry.close();

        assertThat(Callbacks.registry(name)).isNull();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(WebGpuHeader.CALLBACK_INFO);
            assertThatThrownBy(() -> registry.prepare(info, Callbacks.Kind.WORK_DONE))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void a_prepared_request_names_its_registry_and_its_entry_in_the_two_userdata_words() {
        try (CallbackRegistry one = new CallbackRegistry();
                CallbackRegistry two = new CallbackRegistry();
                Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(WebGpuHeader.CALLBACK_INFO);
            Callbacks.Completion c = two.prepare(info, Callbacks.Kind.REQUEST);
            long key = info.get(ValueLayout.ADDRESS, WebGpuHeader.CBI_USERDATA1).address();
            long registry =
                    info.get(ValueLayout.ADDRESS, WebGpuHeader.CBI_USERDATA2).address();

            assertThat(registry).isEqualTo(two.id()).isNotEqualTo(one.id());
            assertThat(one.take(key)).isNull();
            assertThat(two.take(key)).isSameAs(c);
            assertThat(two.outstanding()).isZero();
        }
    }

    @Test
    void device_receivers_are_forgotten_when_the_registry_closes() {
        CallbackRegistry registry = new CallbackRegistry();
        Callbacks.DeviceEvents events = new Callbacks.DeviceEvents() {
            @Override
            public void uncapturedError(int type, String message) {}

            @Override
            public void deviceLost(int reason, String message) {}
        };
        long key = registry.registerDevice(events);
        assertThat(registry.device(key)).isSameAs(events);

        registry.close();

        assertThat(registry.device(key)).isNull();
    }
}
