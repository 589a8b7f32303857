/**
 * The backend SPI: what a backend implements ({@link dev.graphrt.spi.Backend}, {@link dev.graphrt.spi.BackendStream},
 * {@link dev.graphrt.spi.DeviceMemory}, a kernel compiler) and offers through {@link dev.graphrt.spi.BackendProvider}
 * in {@code ServiceLoader}. The core owns every ordering rule and calls these hooks around each transition; a backend
 * implements device calls only, and the conformance kit proves it keeps the contract (docs/writing-a-backend.md).
 */
@NullMarked
package dev.graphrt.spi;

import org.jspecify.annotations.NullMarked;
