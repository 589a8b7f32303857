package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GraphKind;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Each recording gets a stamp of its own from the runtime's stamps, so a buffer held by one is not taken as held by the next. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WindowStampTest {
    @Test
    void every_recording_takes_a_new_stamp_from_the_runtimes_stamp_ids() {
        LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
        f.lifecycle.prepare();
        f.lifecycle.beginCapture(CaptureOptions.defaults());
        long first = f.lifecycle.windowStamp();
        f.lifecycle.endCapture();
        f.lifecycle.prepare();
        f.lifecycle.beginCapture(CaptureOptions.defaults());
        long second = f.lifecycle.windowStamp();
        f.lifecycle.endCapture();

        assertThat(first)
                .as("from the fixture's stamp ids, which start above 2^40")
                .isGreaterThan(1L << 40);
        assertThat(second).isGreaterThan(first);
    }
}
