// The C floor for DependentLaunchBench, in plain CUDA C (runtime API): a chain of K dependent saxpy launches over
// N floats captured twice into a graph, once as plain launches and once with programmatic dependent launch (a kernel
// that waits with griddepcontrol.wait before it touches memory and lets its successor start with
// griddepcontrol.launch_dependents, each launched with cudaLaunchKernelEx and programmatic stream serialization).
// Eager chains of both kinds too. Rounds interleaved, medians of wall time per kernel (submit + synchronize), every
// result checked exactly. Built and run by scripts/gpu-run.sh (step pdl) on the GPU machine:
//   nvcc -O2 -arch=sm_90 -o dependent_launch_floor dependent_launch_floor.cu && ./dependent_launch_floor ROUNDS NxK...
// Then each graph's time on the device alone, between two globaltimer stamps (see stamp()). Prints a table, then one
// line per row: "c: row=NxK eager=E eager_pdl=P graph=G pdl_graph=Q device_graph=D device_pdl_graph=R".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

__device__ __forceinline__ void axpy(const float* x, float* y, const int* info) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < info[0]) y[i] = __fadd_rn(__fmul_rn(__int_as_float(info[1]), x[i]), y[i]);
}

__global__ void saxpy(const float* x, float* y, const int* info) { axpy(x, y, info); }

__global__ void saxpy_dependent(const float* x, float* y, const int* info) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    axpy(x, y, info);
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// The device's clock into out[slot] after spinning `spin` ns: before a graph launch (a spin long enough that the graph
// is queued before it ends) and after it (no spin), two stamps bound the graph's time on the device alone.
__global__ void stamp(unsigned long long* out, int slot, int spin) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    t = t0;
    while (t - t0 < (unsigned long long)spin) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (threadIdx.x == 0) out[slot] = t;
}

#define CHECK(call) do { cudaError_t rc_ = (call); if (rc_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(rc_)); std::exit(1); } } while (0)

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

struct Chain {
    dim3 grid, block;
    const float* x; float* y; const int* info;
    cudaStream_t s;
    void plain(int k) const { for (int j = 0; j < k; j++) saxpy<<<grid, block, 0, s>>>(x, y, info); }
    void dependent(int k) const {
        cudaLaunchAttribute attribute[1] = {};
        attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = grid; config.blockDim = block; config.stream = s;
        config.attrs = attribute; config.numAttrs = 1;
        for (int j = 0; j < k; j++) CHECK(cudaLaunchKernelEx(&config, saxpy_dependent, x, y, info));
    }
    template <typename F> cudaGraphExec_t capture(F record) const {
        cudaGraph_t g; cudaGraphExec_t e;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        record();
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&e, g, 0));
        CHECK(cudaGraphUpload(e, s));
        CHECK(cudaGraphDestroy(g));
        return e;
    }
};

template <typename F> static double timed(cudaStream_t s, F work, double* submit = nullptr) {
    auto t0 = std::chrono::steady_clock::now();
    work();
    auto submitted = std::chrono::steady_clock::now();
    CHECK(cudaStreamSynchronize(s));
    if (submit) *submit = std::chrono::duration<double, std::micro>(submitted - t0).count();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// The median device time per kernel of `rounds` launches of `graph` (k kernels), between two stamps.
static double device_per_kernel(cudaStream_t s, cudaGraphExec_t graph, int k, int rounds, unsigned long long* stamps) {
    std::vector<double> spans;
    for (int r = 0; r < rounds; r++) {
        stamp<<<1, 32, 0, s>>>(stamps, 0, 300000);
        CHECK(cudaGraphLaunch(graph, s));
        stamp<<<1, 32, 0, s>>>(stamps, 1, 0);
        unsigned long long t[2];
        CHECK(cudaMemcpyAsync(t, stamps, sizeof t, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        spans.push_back((t[1] - t[0]) / 1e3 / k);
    }
    return median(spans);
}

// What GraphRT's host path does around a graph launch, added one at a time to the plain one: cuCtxSetCurrent before
// the launch (GraphRT's cuda backend makes its context current on every call), and a wait that records an event
// and polls it (GraphRT's bounded wait) instead of cudaStreamSynchronize, with cuCtxSetCurrent before each poll; and
// cuCtxGetCurrent with a cuCtxSetCurrent only when another context is current (what the backend does since).
// Prints "ablation: row=NxK <variant>_submit=S <variant>_total=T ..." in microseconds per graph launch.
static void ablation(cudaStream_t s, cudaGraphExec_t graph, int n, int k, int rounds, char* out, size_t room) {
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    cudaEvent_t event;
    CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    const char* names[5] = {"plain", "set_current", "polled", "polled_set_current", "get_current"};
    std::vector<double> submit[5], total[5];
    for (int r = -3; r < rounds; r++) {
        for (int v = 0; v < 5; v++) {
            bool set = v == 1 || v == 3, polled = v == 2 || v == 3;
            auto t0 = std::chrono::steady_clock::now();
            if (set) cuCtxSetCurrent(ctx);
            if (v == 4) { // what GraphRT's cuda backend does now: ask, and set only when another context is current
                CUcontext current;
                if (cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != ctx) cuCtxSetCurrent(ctx);
            }
            CHECK(cudaGraphLaunch(graph, s));
            auto t1 = std::chrono::steady_clock::now();
            if (polled) {
                if (set) cuCtxSetCurrent(ctx);
                CHECK(cudaEventRecord(event, s));
                while (true) {
                    if (set) cuCtxSetCurrent(ctx);
                    cudaError_t q = cudaEventQuery(event);
                    if (q == cudaSuccess) break;
                    if (q != cudaErrorNotReady) CHECK(q);
                }
            }
            CHECK(cudaStreamSynchronize(s));
            auto t2 = std::chrono::steady_clock::now();
            if (r >= 0) {
                submit[v].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
                total[v].push_back(std::chrono::duration<double, std::micro>(t2 - t0).count());
            }
        }
    }
    int used = std::snprintf(out, room, "ablation: row=%dx%d", n, k);
    for (int v = 0; v < 5; v++)
        used += std::snprintf(out + used, room - used, " %s_submit=%.2f %s_total=%.2f", names[v], median(submit[v]),
                              names[v], median(total[v]));
    std::snprintf(out + used, room - used, "\n");
    CHECK(cudaEventDestroy(event));
}

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
    std::vector<std::pair<int, int>> rows;
    for (int a = 2; a < argc; a++) { int n, k; if (std::sscanf(argv[a], "%dx%d", &n, &k) == 2) rows.push_back({n, k}); }
    if (rows.empty()) rows = {{1024, 1000}, {1024, 100}, {65536, 1000}};
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::printf("| elements x launches | C eager | C eager, PDL | C graph | C graph, PDL | PDL graph / graph "
                "| C graph on the device | C graph, PDL, on the device | check |\n|---|---|---|---|---|---|---|---|---|\n");
    unsigned long long* stamps;
    CHECK(cudaMalloc(&stamps, 16));
    std::vector<char> lines(1 << 16);
    int used = 0;
    for (auto row : rows) {
        int n = row.first, k = row.second;
        std::vector<float> x(n), y0(n);
        for (int i = 0; i < n; i++) { x[i] = i % 7; y0[i] = i % 3; }
        float two = 2.0f; int info[2] = {n, *reinterpret_cast<int*>(&two)};
        float *dx, *dy; int* dinfo;
        CHECK(cudaMalloc(&dx, n * 4)); CHECK(cudaMalloc(&dy, n * 4)); CHECK(cudaMalloc(&dinfo, 8));
        CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dy, y0.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dinfo, info, 8, cudaMemcpyHostToDevice));
        Chain chain{dim3((n + 255) / 256), dim3(256), dx, dy, dinfo, s};
        cudaGraphExec_t plain = chain.capture([&] { chain.plain(k); });
        cudaGraphExec_t dependent = chain.capture([&] { chain.dependent(k); });
        long long kernels = 0;
        std::vector<double> eager, eagerPdl, graph, graphPdl, graphSubmit, graphPdlSubmit;
        for (int r = -3; r < rounds; r++) {
            double e = timed(s, [&] { chain.plain(k); });
            double ep = timed(s, [&] { chain.dependent(k); });
            double gs, gps;
            double g = timed(s, [&] { CHECK(cudaGraphLaunch(plain, s)); }, &gs);
            double gp = timed(s, [&] { CHECK(cudaGraphLaunch(dependent, s)); }, &gps);
            kernels += 4LL * k;
            if (r >= 0) {
                eager.push_back(e / k); eagerPdl.push_back(ep / k); graph.push_back(g / k); graphPdl.push_back(gp / k);
                graphSubmit.push_back(gs); graphPdlSubmit.push_back(gps);
            }
        }
        char ablated[512];
        ablation(s, plain, n, k, rounds, ablated, sizeof ablated);
        kernels += 5LL * k * (rounds + 3);
        used += std::snprintf(lines.data() + used, lines.size() - used, "%s", ablated);
        double dg = device_per_kernel(s, plain, k, rounds, stamps);
        double dp = device_per_kernel(s, dependent, k, rounds, stamps);
        kernels += 2LL * k * rounds;
        std::vector<float> y(n);
        CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
        bool exact = true;
        for (int i = 0; i < n && exact; i++) exact = y[i] == y0[i] + 2.0f * kernels * x[i];
        double e = median(eager), ep = median(eagerPdl), g = median(graph), gp = median(graphPdl);
        std::printf("| %d x %d | %.3f | %.3f | %.3f | %.3f | %.2fx | %.3f | %.3f | %s (%lld kernels) |\n", n, k, e, ep, g,
                    gp, gp / g, dg, dp, exact ? "exact" : "FAILED", kernels);
        used += std::snprintf(lines.data() + used, lines.size() - used,
                              "c: row=%dx%d eager=%.3f eager_pdl=%.3f graph=%.3f pdl_graph=%.3f device_graph=%.3f "
                              "device_pdl_graph=%.3f exact=%d\n", n, k, e, ep, g, gp, dg, dp, exact ? 1 : 0);
        used += std::snprintf(lines.data() + used, lines.size() - used,
                              "host: row=%dx%d graph_submit_us=%.2f graph_total_us=%.2f pdl_submit_us=%.2f "
                              "pdl_total_us=%.2f device_graph_us=%.2f device_pdl_graph_us=%.2f\n", n, k,
                              median(graphSubmit), g * k, median(graphPdlSubmit), gp * k, dg * k, dp * k);
        CHECK(cudaGraphExecDestroy(plain)); CHECK(cudaGraphExecDestroy(dependent));
        CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaFree(dinfo));
    }
    std::printf("\n%s", lines.data());
    return 0;
}
