package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendCommunicator;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.CollectiveCall;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.StreamCommunicator;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The NCCL binding through its real FFM layer, against {@code src/test/native/fake_nccl.c} on top of
 * {@code fake_cuda.c} (.ci/run's fake driver step sets {@value #FAKE}): the unique id passed by value, every
 * operation's arguments in NCCL's order, the group around a process's ranks, NCCL's error text, and a join whose
 * other ranks come late (bounded for the caller, the late communicator destroyed). Skipped elsewhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
@SuppressWarnings("restricted") // the fake's counter is read through FFM
class CudaCollectivesFakeDriverTest {
    /** The fake library's path; set only where it was built. */
    static final String FAKE = "GRAPHRT_FAKE_NCCL";

    private static final int N = 293;

    private Backend backend;
    private BackendCollectives collectives;
    private MethodHandle live;
    private MethodHandle made;
    private BackendStream stream;
    private DeviceAllocation sendBlock;
    private DeviceAllocation recvBlock;
    private DeviceSlice send;
    private DeviceSlice recv;

    @BeforeAll
    void openBackend() {
        String fake = System.getenv(FAKE);
        assumeTrue(fake != null && !fake.isBlank(), "needs " + FAKE + " (the fake driver step of .ci/run)");
        assumeTrue(new CudaBackendProvider().probe().available(), "needs libcuda (the fake one)");
        backend = new CudaBackendProvider().open(new BackendConfig(0, Map.of(CudaNccl.OPTION, fake)));
        collectives = backend.collectives().orElseThrow();
        SymbolLookup library = SymbolLookup.libraryLookup(Path.of(fake), Arena.global());
        live = Linker.nativeLinker()
                .downcallHandle(library.find("fake_nccl_live").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
        made = Linker.nativeLinker()
                .downcallHandle(library.find("fake_nccl_made").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
    }

    @AfterAll
    void closeBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    @BeforeEach
    void buffers() {
        stream = backend.openStream();
        sendBlock = backend.memory().allocate(4L * N);
        recvBlock = backend.memory().allocate(4L * N);
        send = new DeviceSlice(sendBlock, 0, 4L * N);
        recv = new DeviceSlice(recvBlock, 0, 4L * N);
        stream.write(send, MemorySegment.ofArray(pattern(5)));
        stream.write(recv, MemorySegment.ofArray(new int[N]));
    }

    @AfterEach
    void release() {
        stream.synchronize();
        stream.close();
        backend.memory().free(sendBlock);
        backend.memory().free(recvBlock);
    }

    @Test
    void the_backend_declares_collectives_where_the_library_loads() {
        assertThat(backend.capabilities()).contains(Capability.COLLECTIVES);
        assertThat(collectives.newId()).hasSize(128);
    }

    @Test
    void a_joined_rank_all_reduces_through_the_library_and_its_close_destroys_it() throws Throwable {
        int before = (int) live.invokeExact();
        BackendCommunicator rank = collectives.join(collectives.newId(), 0, 1, stream, Duration.ofSeconds(5));
        assertThat((int) live.invokeExact()).isEqualTo(before + 1);
        assertThat(rank).isInstanceOf(StreamCommunicator.class);
        ((StreamCommunicator) rank)
                .enqueue(new CollectiveCall.AllReduce(send, recv, N, ElementType.FLOAT32, ReduceOp.MIN));

        assertThat(read(recv)).isEqualTo(pattern(5));
        rank.close();
        assertThat((int) live.invokeExact()).isEqualTo(before);
    }

    @Test
    void the_ranks_of_a_process_open_in_one_group_and_each_operation_reaches_the_library() throws Throwable {
        List<BackendCommunicator> ranks = collectives.open(List.of(stream), Duration.ofSeconds(5));
        assertThat(ranks).singleElement().satisfies(r -> {
            assertThat(r.rank()).isZero();
            assertThat(r.size()).isEqualTo(1);
        });
        StreamCommunicator rank = (StreamCommunicator) ranks.getFirst();
        collectives.group(() -> rank.enqueue(new CollectiveCall.AllGather(send, recv, N, ElementType.FLOAT32)));
        assertThat(read(recv)).isEqualTo(pattern(5));

        stream.write(send, MemorySegment.ofArray(pattern(6)));
        rank.enqueue(new CollectiveCall.ReduceScatter(send, recv, N, ElementType.INT32, ReduceOp.SUM));
        assertThat(read(recv)).isEqualTo(pattern(6));

        stream.write(send, MemorySegment.ofArray(pattern(7)));
        rank.enqueue(new CollectiveCall.Broadcast(send, recv, N, ElementType.INT32, 0));
        assertThat(read(recv)).isEqualTo(pattern(7));
        rank.close();
    }

    @Test
    void a_failing_call_names_the_call_nccls_result_and_its_text() {
        BackendCommunicator rank = collectives.join(collectives.newId(), 0, 1, stream, Duration.ofSeconds(5));
        try {
            assertThatThrownBy(() -> ((StreamCommunicator) rank)
                            .enqueue(new CollectiveCall.Broadcast(send, recv, N, ElementType.INT32, 1)))
                    .isInstanceOf(DriverException.class)
                    .hasMessageContaining("ncclBroadcast failed: 4 ncclInvalidArgument")
                    .hasMessageContaining("invalid argument (fake)");
            assertThat(read(recv)).isEqualTo(new int[N]);
        } finally {
            rank.close();
        }
    }

    @Test
    void an_id_of_another_size_is_refused_naming_it() {
        assertThatThrownBy(() -> collectives.join(new byte[16], 0, 1, stream, Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("id:")
                .hasMessageContaining("128 bytes");
    }

    @Test
    void a_join_whose_other_ranks_come_late_times_out_for_its_caller_and_the_late_communicator_is_destroyed()
            throws Throwable {
        int before = (int) live.invokeExact();
        int madeBefore = (int) made.invokeExact();
        long started = System.nanoTime();

        assertThatThrownBy(() -> collectives.join(collectives.newId(), 0, 2, stream, Duration.ofMillis(200)))
                .isInstanceOf(WaitTimeoutException.class)
                .hasMessageContaining("rank 0 of 2");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1400));

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos(); // the fake's init ends after 1.5 s
        while (((int) made.invokeExact() == madeBefore || (int) live.invokeExact() != before)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat((int) made.invokeExact())
                .as("the late init made its communicator")
                .isEqualTo(madeBefore + 1);
        assertThat((int) live.invokeExact())
                .as("and the join's thread destroyed it")
                .isEqualTo(before);
    }

    @Test
    void a_rank_that_joins_after_its_backend_closed_is_not_freed_through_the_released_context() throws Throwable {
        int before = (int) live.invokeExact();
        int madeBefore = (int) made.invokeExact();
        Backend other =
                new CudaBackendProvider().open(new BackendConfig(0, Map.of(CudaNccl.OPTION, System.getenv(FAKE))));
        BackendStream otherStream = other.openStream();
        BackendCollectives otherCollectives = other.collectives().orElseThrow();
        assertThatThrownBy(() ->
                        otherCollectives.join(otherCollectives.newId(), 1, 2, otherStream, Duration.ofMillis(100)))
                .isInstanceOf(WaitTimeoutException.class);
        otherStream.close();
        other.close();

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((int) made.invokeExact() == madeBefore && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(100); // what the late thread does after its init returned
        assertThat((int) made.invokeExact())
                .as("the late init made its communicator")
                .isEqualTo(madeBefore + 1);
        assertThat((int) live.invokeExact())
                .as("left, not destroyed after the backend's context was released")
                .isEqualTo(before + 1);
    }

    private int[] read(DeviceSlice slice) {
        int[] out = new int[N];
        stream.read(slice, MemorySegment.ofArray(out));
        return out;
    }

    private static int[] pattern(int seed) {
        int[] values = new int[N];
        for (int i = 0; i < N; i++) {
            values[i] = i * 31 + seed * 1_000_003;
        }
        return values;
    }
}
