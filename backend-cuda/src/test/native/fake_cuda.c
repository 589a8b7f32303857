/*
 * A fake libcuda.so.1 + libnvrtc.so.13 for exercising the cuda backend's FFM layer without a GPU.
 * "Device" memory is host memory; streams run work at once; a capture records kernel launches and
 * async host-to-device copies into a graph that replays them. Only the add_one kernel of
 * CudaDeviceSmokeTest (data[i] += 1 for i < info[0]) and the conformance kit's add_one, mul_two and
 * ping_pong (src, dst, info) are "executed". It checks argument plumbing and the backend's call
 * sequences, not CUDA semantics.
 *
 *   gcc -shared -fPIC -O1 -o DIR/libcuda.so.1 fake_cuda.c && ln -sf libcuda.so.1 DIR/libnvrtc.so.13
 *   LD_LIBRARY_PATH=DIR mvn -pl backend-cuda test -Dtest=CudaDeviceSmokeTest
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { OK = 0, INVALID_VALUE = 1, NOT_FOUND = 500, ILLEGAL_STATE = 401 };

typedef struct { char name[64]; int params; } Func;
typedef struct { int capturing, invalidated; unsigned long long id; struct Graph *graph; } Stream;
typedef struct { int type; Func *f; unsigned gx, bx; uint64_t args[3]; uint64_t dst; const void *src; size_t n; } Node;
typedef struct Graph { int count, cap; Node *nodes; } Graph;

static __thread int thread_mode = 0;
static unsigned long long next_capture = 1;

CUresult cuInit(unsigned f) { (void) f; return OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    switch (e) {
        case 0: *s = "CUDA_SUCCESS"; return OK;
        case 401: *s = "CUDA_ERROR_ILLEGAL_STATE"; return OK;
        case 500: *s = "CUDA_ERROR_NOT_FOUND"; return OK;
        case 901: *s = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"; return OK;
        default: *s = NULL; return INVALID_VALUE;
    }
}
CUresult cuDeviceGetCount(int *c) { *c = 1; return OK; }
CUresult cuDeviceGet(int *d, int o) { if (o != 0) return 101; *d = 0; return OK; }
CUresult cuDeviceGetName(char *n, int len, int d) { (void) d; snprintf(n, len, "Fake GPU"); return OK; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void) d; *b = 1ull << 30; return OK; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
    (void) d;
    switch (a) { /* capability 9.0, one unit, an H200's launch limits */
        case 75: *v = 9; break; case 76: *v = 0; break; case 16: *v = 1; break;
        case 5: *v = 2147483647; break; case 6: case 7: *v = 65535; break;
        case 2: case 3: *v = 1024; break; case 4: *v = 64; break; case 1: *v = 1024; break;
        default: *v = 0;
    }
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void) d; static int ctx; *c = &ctx; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void) d; return OK; }
CUresult cuDevicePrimaryCtxReset_v2(int d) { (void) d; return OK; }
CUresult cuCtxSynchronize(void) { return OK; }
static __thread void *current_context = NULL;
CUresult cuCtxSetCurrent(void *c) { if (!c) return INVALID_VALUE; current_context = c; return OK; }
CUresult cuCtxGetCurrent(void **c) { *c = current_context; return OK; }
CUresult cuThreadExchangeStreamCaptureMode(int *m) { int old = thread_mode; thread_mode = *m; *m = old; return OK; }
CUresult cuStreamCreate(void **s, unsigned f) { if (f != 1) return INVALID_VALUE; *s = calloc(1, sizeof(Stream)); return OK; }
CUresult cuStreamDestroy_v2(void *s) { free(s); return OK; }
static CUresult invalidate(Stream *s) { s->invalidated = 1; return 900; } /* a host sync kills the capture */
CUresult cuStreamSynchronize(void *s) { return ((Stream *) s)->capturing ? invalidate(s) : OK; }
CUresult cuStreamQuery(void *s) { return ((Stream *) s)->capturing ? invalidate(s) : OK; }
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { *p = (uint64_t) aligned_alloc(256, (n + 255) & ~255ul); return *p ? OK : 2; }
CUresult cuMemFree_v2(uint64_t p) { free((void *) p); return OK; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = malloc(n); return *p ? OK : 2; }
CUresult cuMemFreeHost(void *p) { free(p); return OK; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { memcpy((void *) d, s, n); return OK; }

static Node *add_node(Graph *g) {
    if (g->count == g->cap) { g->cap = g->cap ? 2 * g->cap : 16; g->nodes = realloc(g->nodes, g->cap * sizeof(Node)); }
    Node *n = &g->nodes[g->count++]; memset(n, 0, sizeof *n); return n;
}
static void run(Node *n) {
    if (n->type == 1) { memcpy((void *) n->dst, n->src, n->n); return; }
    if (n->f->params == 2 && strcmp(n->f->name, "add_one") == 0) {
        float *data = (float *) n->args[0]; int count = *(int *) n->args[1];
        for (unsigned i = 0; i < n->gx * n->bx && (int) i < count; i++) data[i] += 1.0f;
    } else if (n->f->params == 3) {
        const unsigned *src = (const unsigned *) n->args[0], *info = (const unsigned *) n->args[2];
        unsigned *dst = (unsigned *) n->args[1];
        for (unsigned i = 0; i < n->gx * n->bx && i < info[0]; i++) {
            if (strcmp(n->f->name, "add_one") == 0) dst[i] = src[i] + 1u;
            else if (strcmp(n->f->name, "mul_two") == 0) dst[i] = src[i] * 2u;
            else if (strcmp(n->f->name, "ping_pong") == 0) dst[i] = src[i] * 3u + i + info[1];
        }
    }
}

CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void *s, size_t n, void *st) {
    Stream *stream = st;
    Node node = { .type = 1, .dst = d, .src = s, .n = n };
    if (stream->capturing) { *add_node(stream->graph) = node; return OK; }
    run(&node); return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, uint64_t s, size_t n, void *st) {
    if (((Stream *) st)->capturing) return 900;
    memcpy(d, (void *) s, n); return OK;
}
CUresult cuMemcpyAsync(uint64_t d, uint64_t s, size_t n, void *st) {
    if (((Stream *) st)->capturing) return 900; /* the fake records launches and uploads only */
    memcpy((void *) d, (void *) s, n); return OK;
}
CUresult cuDeviceCanAccessPeer(int *can, int d, int peer) { (void) d; (void) peer; *can = 0; return OK; }
CUresult cuCtxEnablePeerAccess(void *peer, unsigned f) { (void) peer; (void) f; return INVALID_VALUE; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { (void) s; (void) e; (void) f; return OK; } /* in order */
CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *opts, void **vals) {
    if (n != 2 || opts[0] != 5 || opts[1] != 6 || (uintptr_t) vals[1] != 16384) return INVALID_VALUE;
    *m = strdup(image); return OK;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    if (!strstr((char *) m, name)) return NOT_FOUND;
    Func *fn = calloc(1, sizeof(Func)); snprintf(fn->name, sizeof fn->name, "%s", name);
    char signature[128]; snprintf(signature, sizeof signature, "void %s(", name);
    const char *p = strstr((char *) m, signature);
    if (!p) return NOT_FOUND;
    fn->params = 1;
    for (p += strlen(signature); *p && *p != ')'; p++) if (*p == ',') fn->params++;
    *f = fn; return OK;
}
CUresult cuModuleUnload(void *m) { free(m); return OK; }
CUresult cuFuncGetParamInfo(void *f, size_t i, size_t *off, size_t *size) {
    if (i >= (size_t) ((Func *) f)->params) return INVALID_VALUE;
    *off = 8 * i;
    if (size) *size = 8;
    return OK;
}
CUresult cuFuncLoad(void *f) { return f ? OK : INVALID_VALUE; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shm, void *st, void **params, void **extra) {
    if (gy != 1 || gz != 1 || by != 1 || bz != 1 || shm != 0 || extra) return INVALID_VALUE;
    Stream *stream = st;
    Node node = { .type = 0, .f = f, .gx = gx, .bx = bx };
    for (int i = 0; i < ((Func *) f)->params && i < 3; i++) node.args[i] = *(uint64_t *) params[i];
    if (stream->capturing) { if (stream->invalidated) return 901; *add_node(stream->graph) = node; return OK; }
    run(&node); return OK;
}
CUresult cuEventCreate(void **e, unsigned f) { if (f != 2) return INVALID_VALUE; *e = malloc(8); return OK; }
CUresult cuEventRecord(void *e, void *s) { (void) e; return ((Stream *) s)->capturing ? 900 : OK; }
CUresult cuEventQuery(void *e) { (void) e; return OK; }
CUresult cuEventSynchronize(void *e) { (void) e; return OK; }
CUresult cuEventDestroy_v2(void *e) { free(e); return OK; }
CUresult cuStreamBeginCapture_v2(void *st, int mode) {
    Stream *s = st; if (s->capturing) return ILLEGAL_STATE; if (mode < 0 || mode > 2) return INVALID_VALUE;
    s->capturing = 1; s->id = next_capture++; s->graph = calloc(1, sizeof(Graph)); return OK;
}
CUresult cuStreamEndCapture(void *st, void **g) {
    Stream *s = st; if (!s->capturing) return ILLEGAL_STATE;
    s->capturing = 0;
    if (s->invalidated) { s->invalidated = 0; free(s->graph->nodes); free(s->graph); s->graph = NULL; *g = NULL; return 901; }
    *g = s->graph; s->graph = NULL; return OK;
}
CUresult cuStreamIsCapturing(void *st, int *status) { Stream *s = st; *status = s->capturing ? 1 + s->invalidated : 0; return OK; }
CUresult cuStreamGetCaptureInfo_v3(void *st, int *status, unsigned long long *id, void **g, void **d, void **e, size_t *n) {
    (void) g; (void) d; (void) e; (void) n; Stream *s = st; *status = s->capturing; if (id) *id = s->id; return OK;
}
CUresult cuGraphGetNodes(void *g, void **nodes, size_t *n) {
    Graph *graph = g;
    if (nodes) { for (size_t i = 0; i < *n && i < (size_t) graph->count; i++) nodes[i] = &graph->nodes[i]; }
    *n = graph->count; return OK;
}
CUresult cuGraphNodeGetType(void *node, int *type) { *type = ((Node *) node)->type; return OK; }
CUresult cuGraphInstantiateWithFlags(void **exec, void *g, unsigned long long flags) {
    if (flags) return INVALID_VALUE;
    Graph *src = g, *copy = calloc(1, sizeof(Graph));
    copy->count = copy->cap = src->count; copy->nodes = malloc(sizeof(Node) * (src->count ? src->count : 1));
    memcpy(copy->nodes, src->nodes, sizeof(Node) * src->count); *exec = copy; return OK;
}
CUresult cuGraphUpload(void *exec, void *st) { (void) exec; return ((Stream *) st)->capturing ? 900 : OK; }
CUresult cuGraphLaunch(void *exec, void *st) {
    if (((Stream *) st)->capturing) return 900;
    Graph *g = exec; for (int i = 0; i < g->count; i++) run(&g->nodes[i]); return OK;
}
static void free_graph(Graph *g) { free(g->nodes); free(g); }
CUresult cuGraphExecDestroy(void *exec) { free_graph(exec); return OK; }
CUresult cuGraphDestroy(void *g) { free_graph(g); return OK; }
CUresult cuGraphDebugDotPrint(void *g, const char *path, unsigned flags) {
    (void) flags; Graph *graph = g; FILE *f = fopen(path, "w"); if (!f) return 304;
    fprintf(f, "digraph dot {\nsubgraph cluster_1 {\nlabel=\"graph_1\" graph[style=\"dashed\"];\n");
    for (int i = 0; i < graph->count; i++)
        fprintf(f, "\"graph_1_node_%d\"[shape=\"record\" label=\"{%s | %s}\"];\n", i,
                graph->nodes[i].type ? "MEMCPY" : "KERNEL", graph->nodes[i].type ? "HtoD" : graph->nodes[i].f->name);
    for (int i = 1; i < graph->count; i++) fprintf(f, "\"graph_1_node_%d\" -> \"graph_1_node_%d\";\n", i - 1, i);
    fprintf(f, "}\n}\n"); fclose(f); return OK;
}

/* ---- NVRTC ---- */
typedef struct { char *src; char *name; int failed; } Program;
int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }
const char *nvrtcGetErrorString(int r) { return r == 0 ? "NVRTC_SUCCESS" : r == 6 ? "NVRTC_ERROR_COMPILATION" : "NVRTC_ERROR"; }
int nvrtcGetNumSupportedArchs(int *n) { *n = 3; return 0; }
int nvrtcGetSupportedArchs(int *a) { a[0] = 80; a[1] = 89; a[2] = 90; return 0; }
int nvrtcCreateProgram(void **p, const char *src, const char *name, int nh, const char *const *h, const char *const *in) {
    if (nh != 0 || h || in) return 3;
    Program *prog = calloc(1, sizeof(Program)); prog->src = strdup(src); prog->name = strdup(name); *p = prog; return 0;
}
int nvrtcDestroyProgram(void **p) { Program *prog = *p; free(prog->src); free(prog->name); free(prog); *p = NULL; return 0; }
int nvrtcCompileProgram(void *p, int n, const char *const *opts) {
    Program *prog = p;
    if (n != 1 || strcmp(opts[0], "--gpu-architecture=compute_90") != 0) return 5;
    prog->failed = strstr(prog->src, "= y;") != NULL; return prog->failed ? 6 : 0;
}
static const char *log_of(Program *p) { return p->failed ? "broken.cu(1): error: identifier \"y\" is undefined\n" : ""; }
int nvrtcGetProgramLogSize(void *p, size_t *n) { *n = strlen(log_of(p)) + 1; return 0; }
int nvrtcGetProgramLog(void *p, char *out) { strcpy(out, log_of(p)); return 0; }
int nvrtcGetPTXSize(void *p, size_t *n) { *n = strlen(((Program *) p)->src) + 1; return 0; }
int nvrtcGetPTX(void *p, char *out) { strcpy(out, ((Program *) p)->src); return 0; }
