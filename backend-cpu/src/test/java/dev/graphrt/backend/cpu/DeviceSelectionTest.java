package dev.graphrt.backend.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GraphRT.devices() and choosing a device by backend and ordinal, through ServiceLoader, on the cpu backend. */
class DeviceSelectionTest {

    @Test
    void the_device_list_holds_the_cpu_device_as_its_runtime_describes_it() {
        List<AvailableDevice> devices = GraphRT.devices();

        AvailableDevice cpu = devices.stream()
                .filter(d -> d.backend().equals("cpu"))
                .findFirst()
                .orElseThrow();
        assertThat(cpu.ordinal()).isZero();
        try (GraphRuntime runtime = GraphRT.open(cpu.options())) {
            assertThat(runtime.backendName()).isEqualTo("cpu");
            assertThat(cpu.device()).isEqualTo(runtime.device());
            assertThat(cpu.capabilities()).isEqualTo(runtime.capabilities());
            assertThat(cpu.graphKind()).isEqualTo(runtime.graphKind());
        }
    }

    @Test
    void an_ordinal_the_backend_does_not_have_is_refused_naming_the_argument_and_the_count() {
        assertThatThrownBy(() -> GraphRT.open(RuntimeOptions.defaults().device("cpu", 1)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("deviceIndex")
                .hasMessageContaining("one device (0), was 1");
    }

    @Test
    void a_negative_ordinal_is_refused_before_anything_opens() {
        assertThatThrownBy(() -> RuntimeOptions.defaults().device("cpu", -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deviceIndex must be >= 0, was -1");
    }
}
