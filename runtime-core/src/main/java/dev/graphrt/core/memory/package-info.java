/**
 * Device memory of the core: the dynamic and persistent pools, fences and the drop queue that returns memory once work passed it. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.memory;

import org.jspecify.annotations.NullMarked;
