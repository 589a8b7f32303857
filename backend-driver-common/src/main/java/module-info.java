/**
 * The shared driver layer of GraphRT's hardware-graph backends (cuda, hip): the capture sequence, event fences,
 * write staging, graph-owned host copies, device memory, the module cache, parameter packing, the error table
 * and the raw-binding helpers. A backend adds only its own native calls.
 *
 * <p>Why a module of its own: this is stateful FFM machinery that only driver backends use, so it stays out of
 * the API jar every user compiles against (Netty's {@code transport-native-unix-common} shape).
 */
module dev.graphrt.driver {
    requires transitive dev.graphrt.api;
    requires transitive org.slf4j; // it logs, and GraphCapture's constructor takes the stream's Logger

    exports dev.graphrt.driver;
}
