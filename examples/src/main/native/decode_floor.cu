// The physical floor for DecodeBench, in plain CUDA C (runtime API): the same chain of K dependent saxpy
// launches over N floats, eager vs one graph launch, rounds interleaved, medians of wall time per kernel
// (submit + synchronize), verified exactly. Built and run by scripts/gpu-run.sh on the GPU machine:
//   nvcc -O2 -arch=sm_90 -o decode_floor decode_floor.cu && ./decode_floor ROUNDS NxK...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void saxpy(const float* x, float* y, const int* info) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < info[0]) y[i] = __fadd_rn(__fmul_rn(__int_as_float(info[1]), x[i]), y[i]);
}

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); std::exit(1); } } while (0)

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
    std::vector<std::pair<int, int>> rows;
    for (int a = 2; a < argc; a++) { int n, k; if (std::sscanf(argv[a], "%dx%d", &n, &k) == 2) rows.push_back({n, k}); }
    if (rows.empty()) rows = {{1024, 150}, {1024, 1000}, {65536, 1000}, {1 << 20, 500}, {1 << 24, 100}};
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::printf("| elements x launches | C eager us/kernel | C graph us/kernel | eager/graph | check |\n|---|---|---|---|---|\n");
    for (auto [n, k] : rows) {
        std::vector<float> x(n), y0(n);
        for (int i = 0; i < n; i++) { x[i] = i % 7; y0[i] = i % 3; }
        float two = 2.0f; int info[2] = {n, *reinterpret_cast<int*>(&two)};
        float *dx, *dy; int* dinfo;
        CHECK(cudaMalloc(&dx, n * 4)); CHECK(cudaMalloc(&dy, n * 4)); CHECK(cudaMalloc(&dinfo, 8));
        CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dy, y0.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dinfo, info, 8, cudaMemcpyHostToDevice));
        dim3 grid((n + 255) / 256), block(256);
        cudaGraph_t g; cudaGraphExec_t ge;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int j = 0; j < k; j++) saxpy<<<grid, block, 0, s>>>(dx, dy, dinfo);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        CHECK(cudaGraphUpload(ge, s));
        long long kernels = 0;
        std::vector<double> eager, graph;
        for (int r = -3; r < rounds; r++) {
            auto t0 = std::chrono::steady_clock::now();
            for (int j = 0; j < k; j++) saxpy<<<grid, block, 0, s>>>(dx, dy, dinfo);
            CHECK(cudaStreamSynchronize(s));
            auto t1 = std::chrono::steady_clock::now();
            CHECK(cudaGraphLaunch(ge, s));
            CHECK(cudaStreamSynchronize(s));
            auto t2 = std::chrono::steady_clock::now();
            kernels += 2LL * k;
            if (r >= 0) {
                eager.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / k);
                graph.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count() / k);
            }
        }
        std::vector<float> y(n);
        CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
        bool exact = true;
        for (int i = 0; i < n && exact; i++) exact = y[i] == y0[i] + 2.0f * kernels * x[i];
        double e = median(eager), gr = median(graph);
        std::printf("| %d x %d | %.2f | %.2f | %.2fx | %s (%lld kernels) |\n", n, k, e, gr, e / gr, exact ? "exact" : "FAILED", kernels);
        CHECK(cudaGraphExecDestroy(ge)); CHECK(cudaGraphDestroy(g));
        CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaFree(dinfo));
    }
    return 0;
}
