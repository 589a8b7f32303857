package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** What an instance registered for its callbacks goes away with the backend that owns it. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuInstanceCloseTest {

    @Test
    void closing_the_backend_fails_what_its_instance_still_waits_for_and_stops_routing_callbacks_to_it() {
        WgpuBackend backend = WgpuTestSupport.open();
        WgpuInstance instance = backend.nativeDevice().instance;
        Callbacks.Completion neverAnswered;
        instance.lock.lock();
        try {
            neverAnswered = instance.prepare(Callbacks.Kind.WORK_DONE); // no native call will ever answer it
        } finally {
            instance.lock.unlock();
        }
        long registry = instance.callbacks.id();
        assertThat(Callbacks.registry(MemorySegment.ofAddress(registry))).isSameAs(instance.callbacks);

        backend.close();

        assertThat(neverAnswered.done).isTrue();
        assertThat(neverAnswered.succeeded()).isFalse();
        assertThat(neverAnswered.message).contains("closed");
        assertThat(instance.callbacks.outstanding()).isZero();
        assertThat(Callbacks.registry(MemorySegment.ofAddress(registry))).isNull();
    }

    @Test
    void two_backends_route_callbacks_through_registries_of_their_own() {
        try (WgpuBackend one = WgpuTestSupport.open(); WgpuBackend two = WgpuTestSupport.open()) {
            CallbackRegistry first = one.nativeDevice().instance.callbacks;
            CallbackRegistry second = two.nativeDevice().instance.callbacks;

            assertThat(first).isNotSameAs(second);
            assertThat(first.id()).isNotEqualTo(second.id());
            assertThat(one.compiler().compile(WgpuTestSupport.ADD_ONE)).isNotNull(); // a compile waits on a callback
            assertThat(first.outstanding()).isZero();
            assertThat(second.outstanding()).isZero();
        }
    }
}
