package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The JVM keeps one WebGPU instance, and with it the driver, while backends come and go; what a backend's device
 * registered for its callbacks goes away with that device (issue 13 §2).
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuProcessInstanceTest {

    @Test
    void closing_the_backend_fails_what_its_device_still_waits_for_and_stops_routing_callbacks_to_it() {
        WgpuBackend backend = WgpuTestSupport.open();
        WgpuDevice device = backend.nativeDevice();
        Callbacks.Completion neverAnswered;
        device.lock.lock();
        try {
            neverAnswered = device.prepare(Callbacks.Kind.WORK_DONE); // no native call will ever answer it
        } finally {
            device.lock.unlock();
        }
        long registry = device.callbacks.id();
        assertThat(Callbacks.registry(MemorySegment.ofAddress(registry))).isSameAs(device.callbacks);

        backend.close();

        assertThat(neverAnswered.done).isTrue();
        assertThat(neverAnswered.succeeded()).isFalse();
        assertThat(neverAnswered.message).contains("closed");
        assertThat(device.callbacks.outstanding()).isZero();
        assertThat(Callbacks.registry(MemorySegment.ofAddress(registry))).isNull();
    }

    @Test
    void two_backends_share_the_process_instance_and_route_callbacks_through_registries_of_their_own() {
        try (WgpuBackend one = WgpuTestSupport.open();
                WgpuBackend two = WgpuTestSupport.open()) {
            CallbackRegistry first = one.nativeDevice().callbacks;
            CallbackRegistry second = two.nativeDevice().callbacks;

            assertThat(one.nativeDevice().instance)
                    .isSameAs(two.nativeDevice().instance)
                    .isSameAs(WebGpuProcess.existing());
            assertThat(first).isNotSameAs(second);
            assertThat(first.id()).isNotEqualTo(second.id());
            assertThat(one.compiler().compile(WgpuTestSupport.ADD_ONE)).isNotNull(); // a compile waits on a callback
            assertThat(first.outstanding()).isZero();
            assertThat(second.outstanding()).isZero();
        }
    }

    @Test
    void the_instance_outlives_every_backend_and_a_closed_backend_leaves_no_registry_routed() {
        WgpuTestSupport.open().close(); // the instance exists from here on
        WgpuInstance instance = WebGpuProcess.existing();
        int routedBefore = WebGpuProcess.routed();

        for (int i = 0; i < 3; i++) {
            try (WgpuBackend backend = WgpuTestSupport.open()) {
                assertThat(backend.nativeDevice().instance).isSameAs(instance);
                assertThat(WebGpuProcess.routed()).isEqualTo(routedBefore + 1);
            }
            assertThat(WebGpuProcess.routed()).as("after backend %d closed", i).isEqualTo(routedBefore);
        }
        assertThat(WebGpuProcess.existing()).isSameAs(instance);
        assertThat(instance.handle.address()).isNotZero();
    }

    @Test
    void a_backend_that_closes_healthy_leaves_its_device_to_the_next_one_with_a_registry_of_its_own() {
        NativeDevice first;
        CallbackRegistry firstCallbacks;
        try (WgpuBackend one = WgpuTestSupport.open()) {
            first = one.nativeDevice().nativeDevice();
            firstCallbacks = one.nativeDevice().callbacks;
            assertThat(one.compiler().compile(WgpuTestSupport.ADD_ONE)).isNotNull();
        }
        assertThat(firstCallbacks.isClosed()).isTrue();

        try (WgpuBackend two = WgpuTestSupport.open()) {
            assertThat(two.nativeDevice().nativeDevice()).isSameAs(first);
            assertThat(two.nativeDevice().callbacks).isNotSameAs(firstCallbacks);
            assertThat(two.compiler().compile(WgpuTestSupport.ADD_ONE)).isNotNull(); // its callbacks route to two
            assertThat(two.nativeDevice().callbacks.outstanding()).isZero();
        }
    }

    @Test
    void a_device_that_was_lost_is_released_and_the_next_backend_opens_a_new_one() {
        NativeDevice lost;
        try (WgpuBackend one = WgpuTestSupport.open()) {
            lost = one.nativeDevice().nativeDevice();
            WgpuTestSupport.forceLoss(one, "lost on purpose by a test");
        }
        try (WgpuBackend two = WgpuTestSupport.open()) {
            assertThat(two.nativeDevice().nativeDevice()).isNotSameAs(lost);
            assertThat(two.compiler().compile(WgpuTestSupport.ADD_ONE)).isNotNull();
        }
    }

    @Test
    void a_device_a_backend_left_holding_a_buffer_is_released_with_the_buffer_not_handed_on() {
        NativeDevice leaky;
        try (WgpuBackend one = WgpuTestSupport.open()) {
            leaky = one.nativeDevice().nativeDevice();
            assertThat(one.memory().allocate(4096)).isNotNull(); // never freed
        }
        try (WgpuBackend two = WgpuTestSupport.open()) {
            assertThat(two.nativeDevice().nativeDevice()).isNotSameAs(leaky);
        }
    }

    @Test
    void two_backends_open_at_once_get_two_devices_and_one_of_them_is_kept_when_both_close() {
        NativeDevice a;
        NativeDevice b;
        try (WgpuBackend one = WgpuTestSupport.open();
                WgpuBackend two = WgpuTestSupport.open()) {
            a = one.nativeDevice().nativeDevice();
            b = two.nativeDevice().nativeDevice();
            assertThat(a).isNotSameAs(b);
        }
        try (WgpuBackend three = WgpuTestSupport.open();
                WgpuBackend four = WgpuTestSupport.open()) {
            NativeDevice c = three.nativeDevice().nativeDevice();
            NativeDevice d = four.nativeDevice().nativeDevice();
            assertThat(java.util.List.of(a, b))
                    .as("one of the two closed devices serves again")
                    .containsAnyOf(c, d);
            assertThat(c).isNotSameAs(d);
        }
    }
}
