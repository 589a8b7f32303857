/**
 * Device memory of the core: the dynamic and persistent pools, fences and the drop queue that returns memory once work passed it. Internal to runtime-core (not exported).
 */
package dev.graphrt.core.memory;
