package dev.graphrt.spi;

/**
 * How a stream's captures become graphs: exactly one of two contracts, offered by {@link BackendStream#capture()}
 * and chosen once, when the stream opens. {@link DriverCapture}: the driver records while the stream captures
 * (cuda, hip; the core calls this graph kind {@code HARDWARE}). {@link SoftwareGraphs}: the core records the
 * launches and the backend seals them (wgpu, cpu, the template; {@code SOFTWARE}). Which one a stream offers is the
 * only place a backend says its graph kind.
 */
public sealed interface CaptureSupport permits DriverCapture, SoftwareGraphs {}
