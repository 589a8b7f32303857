package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PeerAccessTest {
    private final AtomicInteger madeCurrent = new AtomicInteger();
    private final AtomicInteger asked = new AtomicInteger();
    private final DriverContext device = new DriverContext() {
        @Override
        public DriverNames names() {
            return new DriverNames("fake", "fake", HardwareGraphErrors.withNames(code -> "E" + code));
        }

        @Override
        public void makeCurrent() {
            madeCurrent.incrementAndGet();
        }
    };
    private final PeerAccess peers = new PeerAccess(
            device,
            new DriverCalls(HardwareGraphErrors.withNames(code -> "E" + code)),
            "fakeCanAccessPeer",
            "fakeEnablePeer");

    private boolean reaches(StreamDriver peer, boolean sameDevice, int canAccess, int enableResult) {
        return peers.reaches(
                peer,
                sameDevice,
                out -> {
                    asked.incrementAndGet();
                    out.set(JAVA_INT, 0, canAccess);
                    return 0;
                },
                () -> enableResult);
    }

    @Test
    void the_same_device_is_reached_without_asking_the_driver() {
        assertThat(reaches(mock(StreamDriver.class), true, 0, 1)).isTrue();
        assertThat(asked).hasValue(0);
        assertThat(madeCurrent).hasValue(0);
    }

    @Test
    void a_peer_the_devices_cannot_reach_is_not_enabled() {
        assertThat(reaches(mock(StreamDriver.class), false, 0, 0)).isFalse();
    }

    @Test
    void an_enabled_or_already_enabled_peer_is_reached_and_a_refused_one_is_not() {
        assertThat(reaches(mock(StreamDriver.class), false, 1, HardwareGraphErrors.SUCCESS))
                .isTrue();
        assertThat(reaches(mock(StreamDriver.class), false, 1, PeerAccess.ALREADY_ENABLED))
                .isTrue();
        assertThat(reaches(mock(StreamDriver.class), false, 1, 711))
                .as("too many peers: staged copies")
                .isFalse();
        assertThat(madeCurrent)
                .as("this device's context is current for each enable")
                .hasValue(3);
    }

    @Test
    void each_peer_is_asked_once() {
        StreamDriver peer = mock(StreamDriver.class);
        reaches(peer, false, 1, HardwareGraphErrors.SUCCESS);
        assertThat(reaches(peer, false, 0, 711)).as("the first answer stands").isTrue();
        assertThat(asked).hasValue(1);
    }
}
