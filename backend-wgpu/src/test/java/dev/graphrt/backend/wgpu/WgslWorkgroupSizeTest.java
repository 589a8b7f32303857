package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.BlockShape;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The block a WGSL entry point fixes, read from its text, so the core can refuse a launch with another one. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgslWorkgroupSizeTest {
    private static final String TWO_ENTRY_POINTS = """
            @group(0) @binding(0) var<storage, read_write> data: array<u32>;
            // @workgroup_size(999) in a comment is not an attribute
            @compute @workgroup_size(256)
            fn wide(@builtin(global_invocation_id) id: vec3<u32>) { data[id.x] = 1u; }

            @compute
            @workgroup_size(8u, 4i, 2)
            fn cube(@builtin(global_invocation_id) id: vec3<u32>) { data[id.x] = 2u; }
            """;

    @Test
    void each_entry_point_has_its_own_workgroup_size_and_missing_dimensions_are_one() {
        assertThat(WgslWorkgroupSize.of("wide", TWO_ENTRY_POINTS)).contains(new BlockShape(256, 1, 1));
        assertThat(WgslWorkgroupSize.of("cube", TWO_ENTRY_POINTS)).contains(new BlockShape(8, 4, 2));
    }

    @Test
    void a_size_written_as_an_override_constant_is_not_known_here_so_it_is_not_checked() {
        String wgsl = "override WG: u32 = 64;\n@compute @workgroup_size(WG) fn main() {}";

        assertThat(WgslWorkgroupSize.of("main", wgsl)).isEmpty();
    }

    @Test
    void an_entry_point_without_the_attribute_or_absent_from_the_text_has_none() {
        assertThat(WgslWorkgroupSize.of("main", "fn main() {}")).isEmpty();
        assertThat(WgslWorkgroupSize.of("other", TWO_ENTRY_POINTS)).isEmpty();
    }

    @Test
    void the_attribute_of_the_previous_function_is_not_the_next_ones() {
        String wgsl = "@compute @workgroup_size(32) fn first() {}\nfn helper() {}\n";

        assertThat(WgslWorkgroupSize.of("helper", wgsl)).isEmpty();
    }
}
