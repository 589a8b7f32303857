package dev.graphrt.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The cache's decode run on the cpu backend, small: both passes exact, one capture per bucket, every call counted. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CacheBenchTest {
    @Test
    void a_short_decode_through_the_graph_cache_computes_exactly_with_one_capture_per_bucket() {
        assertThat(CacheBench.run("cpu", 300, 4)).isTrue();
    }
}
