package dev.graphrt.core.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.GraphKind;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DriverCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeviceListerTest {
    /** A provider whose probe says {@code availability}; opening ordinal {@code failing} throws. */
    static final class Machine implements BackendProvider {
        final String name;
        final int priority;
        final Availability availability;
        final int failing;
        final List<BackendConfig> opened = new ArrayList<>();
        final List<Backend> backends = new ArrayList<>();

        Machine(String name, int priority, Availability availability, int failing) {
            this.name = name;
            this.priority = priority;
            this.availability = availability;
            this.failing = failing;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public Availability probe() {
            return availability;
        }

        @Override
        public Backend open(BackendConfig config) {
            opened.add(config);
            if (config.deviceIndex() == failing) {
                throw new IllegalStateException("device " + failing + " is in use");
            }
            Backend backend = mock(Backend.class);
            when(backend.device())
                    .thenReturn(new DeviceInfo(
                            name,
                            name + " device " + config.deviceIndex(),
                            "1.0",
                            (config.deviceIndex() + 1L) << 30,
                            4));
            when(backend.capabilities()).thenReturn(Set.of(Capability.GRAPH_UPDATE));
            BackendStream stream = mock(BackendStream.class); // offers driver capture: hardware graphs
            when(stream.capture()).thenReturn(mock(DriverCapture.class));
            when(backend.openStream()).thenReturn(stream);
            backends.add(backend);
            return backend;
        }
    }

    private final BackendSelector selector = new BackendSelector(new BackendConfig(0, Map.of("gpu.lib", "/x")));

    @Test
    void every_ordinal_of_every_available_backend_is_listed_best_backend_first() {
        Machine cpu = new Machine("cpu", 0, Availability.available("java"), -1);
        Machine gpu = new Machine("gpu", 100, Availability.available("two GPUs").withDevices(2), -1);
        Machine missing = new Machine("other", 200, Availability.unavailable("no driver"), -1);

        List<AvailableDevice> devices =
                new DeviceLister(selector, Map.of("gpu.lib", "/x")).list(List.of(cpu, gpu, missing));

        assertThat(devices).extracting(d -> d.backend() + ":" + d.ordinal()).containsExactly("gpu:0", "gpu:1", "cpu:0");
        assertThat(devices.get(1).device().name()).isEqualTo("gpu device 1");
        assertThat(devices.get(1).device().memoryBytes()).isEqualTo(2L << 30);
        assertThat(devices.get(1).capabilities()).containsExactly(Capability.GRAPH_UPDATE);
        assertThat(devices.get(1).graphKind()).isEqualTo(GraphKind.HARDWARE);
        assertThat(missing.opened).isEmpty();
    }

    @Test
    void each_device_is_opened_with_its_ordinal_and_the_backend_options_and_closed_again() {
        Machine gpu = new Machine("gpu", 100, Availability.available("two GPUs").withDevices(2), -1);

        new DeviceLister(selector, Map.of("gpu.lib", "/x")).list(List.of(gpu));

        assertThat(gpu.opened)
                .containsExactly(
                        new BackendConfig(0, Map.of("gpu.lib", "/x")), new BackendConfig(1, Map.of("gpu.lib", "/x")));
        gpu.backends.forEach(backend -> verify(backend).close());
    }

    @Test
    void a_device_that_fails_to_open_is_left_out_and_the_others_are_still_listed() {
        Machine gpu =
                new Machine("gpu", 100, Availability.available("three GPUs").withDevices(3), 1);

        List<AvailableDevice> devices = new DeviceLister(selector, Map.of()).list(List.of(gpu));

        assertThat(devices).extracting(AvailableDevice::ordinal).containsExactly(0, 2);
    }

    @Test
    void a_listed_device_gives_the_options_that_open_it() {
        AvailableDevice device = new AvailableDevice(
                "cuda", 1, new DeviceInfo("cuda", "H200", "13.0", 1L << 37, 132), Set.of(), GraphKind.HARDWARE);

        assertThat(device.options().backend()).contains("cuda");
        assertThat(device.options().deviceIndex()).isEqualTo(1);
    }

    @Test
    void an_available_answer_without_devices_or_an_unavailable_one_with_devices_is_refused() {
        assertThatThrownBy(() -> Availability.available("x").withDevices(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deviceCount");
        assertThatThrownBy(() -> Availability.unavailable("x").withDevices(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unavailable");
    }
}
