/*
 * A fake libnccl.so.2 for exercising GraphRT's NCCL binding (backend-driver-common's CollectiveLibrary) without a
 * GPU, beside fake_cuda.c, whose "device" memory is host memory. A communicator of one rank copies send to recv
 * (what an all-reduce, all-gather, reduce-scatter or broadcast of one rank is); one of more ranks never completes its
 * init within FAKE_NCCL_JOIN_MS milliseconds (default 1500), then succeeds, as if the other ranks came late. It checks
 * argument plumbing: the unique id passed by value must be the one ncclGetUniqueId made, the types and operations
 * NCCL's, the stream non-null. Counters for the test: fake_nccl_live() communicators not yet destroyed, fake_nccl_made() all made.
 *
 *   gcc -shared -fPIC -O1 -o DIR/libnccl.so.2 fake_nccl.c -lpthread
 *   GRAPHRT_FAKE_NCCL=DIR/libnccl.so.2 LD_LIBRARY_PATH=DIR mvn -pl backend-cuda surefire:test \
 *       -Dtest=CudaCollectivesFakeDriverTest
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdatomic.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct { uint32_t magic; int nranks, rank; } Comm;
enum { SUCCESS = 0, INVALID_ARGUMENT = 4, INVALID_USAGE = 5 };
#define MAGIC 0x6e63636cu

static atomic_int live = 0;
static atomic_int made = 0;
static atomic_int group_depth = 0;

int fake_nccl_live(void) { return atomic_load(&live); }
int fake_nccl_made(void) { return atomic_load(&made); }

int ncclGetVersion(int *version) { *version = 22803; return SUCCESS; }

int ncclGetUniqueId(ncclUniqueId *id) {
    for (int i = 0; i < 128; i++) id->internal[i] = (char) (i * 7 + 3);
    return SUCCESS;
}

static int valid_id(ncclUniqueId id) {
    for (int i = 0; i < 128; i++) if (id.internal[i] != (char) (i * 7 + 3)) return 0;
    return 1;
}

int ncclCommInitRank(Comm **comm, int nranks, ncclUniqueId id, int rank) {
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks || !valid_id(id)) return INVALID_ARGUMENT;
    if (nranks > 1) {
        const char *ms = getenv("FAKE_NCCL_JOIN_MS");
        usleep(1000u * (unsigned) (ms ? atoi(ms) : 1500));
    }
    Comm *c = calloc(1, sizeof(Comm));
    c->magic = MAGIC; c->nranks = nranks; c->rank = rank;
    *comm = c;
    atomic_fetch_add(&live, 1);
    atomic_fetch_add(&made, 1);
    return SUCCESS;
}

int ncclCommDestroy(Comm *comm) {
    if (!comm || comm->magic != MAGIC) return INVALID_ARGUMENT;
    comm->magic = 0;
    free(comm);
    atomic_fetch_sub(&live, 1);
    return SUCCESS;
}

int ncclGroupStart(void) { atomic_fetch_add(&group_depth, 1); return SUCCESS; }
int ncclGroupEnd(void) { return atomic_fetch_sub(&group_depth, 1) > 0 ? SUCCESS : INVALID_USAGE; }

static size_t element_bytes(int type) { return type == 2 || type == 7 ? 4 : 0; }

static int one_rank_copy(const void *send, void *recv, size_t count, int type, Comm *comm, void *stream) {
    if (!comm || comm->magic != MAGIC || !stream || !send || !recv || count == 0 || !element_bytes(type))
        return INVALID_ARGUMENT;
    if (comm->nranks != 1) return INVALID_USAGE;
    memmove(recv, send, count * element_bytes(type));
    return SUCCESS;
}

int ncclAllReduce(const void *send, void *recv, size_t count, int type, int op, Comm *comm, void *stream) {
    if (op < 0 || op > 3) return INVALID_ARGUMENT;
    return one_rank_copy(send, recv, count, type, comm, stream);
}

int ncclAllGather(const void *send, void *recv, size_t count, int type, Comm *comm, void *stream) {
    return one_rank_copy(send, recv, count, type, comm, stream);
}

int ncclReduceScatter(const void *send, void *recv, size_t count, int type, int op, Comm *comm, void *stream) {
    if (op < 0 || op > 3) return INVALID_ARGUMENT;
    return one_rank_copy(send, recv, count, type, comm, stream);
}

int ncclBroadcast(const void *send, void *recv, size_t count, int type, int root, Comm *comm, void *stream) {
    if (root != 0) return INVALID_ARGUMENT;
    return one_rank_copy(send, recv, count, type, comm, stream);
}

const char *ncclGetErrorString(int result) {
    switch (result) {
        case SUCCESS: return "no error";
        case INVALID_ARGUMENT: return "invalid argument (fake)";
        case INVALID_USAGE: return "invalid usage (fake)";
        default: return "unknown result (fake)";
    }
}
