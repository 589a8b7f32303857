// The C floor of graph capture, update and rebind, for CaptureBench (issue 15), in plain CUDA C (runtime API) on
// the same chain of K dependent saxpy launches over 1,024 floats as DecodeBench. Per K, medians over ROUNDS:
//   capture  = begin capture, K launches, end capture, instantiate, upload (what GraphRT's capture does);
//   record   = the first three alone (begin, K launches, end);
//   update   = begin capture, K launches (another scale), end capture, cudaGraphExecUpdate into the live graph;
//   rebind 1 = cudaGraphExecKernelNodeSetParams of the one node that reads the input buffer (node 0);
//   rebind K = the same for all K nodes (a buffer every launch passes).
// Each graph is replayed and checked exactly after its update and rebind. Built and run by scripts/gpu-run.sh:
//   nvcc -O2 -arch=sm_90 -o capture_floor capture_floor.cu && ./capture_floor ROUNDS K...
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
static double us(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
}

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
    std::vector<int> ks;
    for (int a = 2; a < argc; a++) ks.push_back(std::atoi(argv[a]));
    if (ks.empty()) ks = {100, 1000};
    const int n = 1024;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<float> x(n), y0(n);
    for (int i = 0; i < n; i++) { x[i] = i % 7; y0[i] = i % 3; }
    float *dx, *dx2, *dy; int *dinfo2, *dinfo3;
    CHECK(cudaMalloc(&dx, n * 4)); CHECK(cudaMalloc(&dx2, n * 4)); CHECK(cudaMalloc(&dy, n * 4));
    CHECK(cudaMalloc(&dinfo2, 8)); CHECK(cudaMalloc(&dinfo3, 8));
    float two = 2.0f, three = 3.0f;
    int info2[2] = {n, *reinterpret_cast<int*>(&two)}, info3[2] = {n, *reinterpret_cast<int*>(&three)};
    CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx2, x.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dinfo2, info2, 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dinfo3, info3, 8, cudaMemcpyHostToDevice));
    dim3 grid((n + 255) / 256), block(256);
    auto record = [&](int k, const int* info) {
        cudaGraph_t g;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int j = 0; j < k; j++) saxpy<<<grid, block, 0, s>>>(dx, dy, info);
        CHECK(cudaStreamEndCapture(s, &g));
        return g;
    };
    std::printf("| launches | C capture+instantiate us | C update us | C rebind 1 node us | C rebind all nodes us "
                "| C record only us | check |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (int k : ks) {
        std::vector<double> capture, update, rebind1, rebindAll, recording;
        bool exact = true;
        for (int r = -3; r < rounds; r++) {
            auto t0 = std::chrono::steady_clock::now();
            cudaGraph_t g = record(k, dinfo2);
            auto t0b = std::chrono::steady_clock::now();
            cudaGraphExec_t ge;
            CHECK(cudaGraphInstantiate(&ge, g, 0));
            CHECK(cudaGraphUpload(ge, s));
            auto t1 = std::chrono::steady_clock::now();
            cudaGraph_t g3 = record(k, dinfo3);
            cudaGraphExecUpdateResultInfo info;
            CHECK(cudaGraphExecUpdate(ge, g3, &info));
            auto t2 = std::chrono::steady_clock::now();
            size_t count = 0;
            CHECK(cudaGraphGetNodes(g, nullptr, &count));
            std::vector<cudaGraphNode_t> nodes(count);
            CHECK(cudaGraphGetNodes(g, nodes.data(), &count));
            float* px2 = dx2; float* py = dy; int* pinfo = dinfo3;
            void* params[3] = {&px2, &py, &pinfo};
            cudaKernelNodeParams p = {};
            p.func = (void*)saxpy; p.gridDim = grid; p.blockDim = block; p.kernelParams = params;
            auto t3 = std::chrono::steady_clock::now();
            CHECK(cudaGraphExecKernelNodeSetParams(ge, nodes[0], &p));
            auto t4 = std::chrono::steady_clock::now();
            for (size_t j = 0; j < count; j++) CHECK(cudaGraphExecKernelNodeSetParams(ge, nodes[j], &p));
            auto t5 = std::chrono::steady_clock::now();
            if (r == rounds - 1) { // the updated, rebound graph computes y += 3 * x2 per launch
                CHECK(cudaMemcpy(dy, y0.data(), n * 4, cudaMemcpyHostToDevice));
                CHECK(cudaGraphLaunch(ge, s));
                CHECK(cudaStreamSynchronize(s));
                std::vector<float> y(n);
                CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
                for (int i = 0; i < n && exact; i++) {
                    float want = y0[i];
                    for (int j = 0; j < k; j++) want = want + 3.0f * x[i]; // small integers: exact in float
                    exact = y[i] == want;
                }
            }
            CHECK(cudaGraphExecDestroy(ge)); CHECK(cudaGraphDestroy(g)); CHECK(cudaGraphDestroy(g3));
            if (r >= 0) {
                capture.push_back(us(t0, t1)); update.push_back(us(t1, t2)); recording.push_back(us(t0, t0b));
                rebind1.push_back(us(t3, t4)); rebindAll.push_back(us(t4, t5));
            }
        }
        std::printf("| %d | %.1f | %.1f | %.2f | %.1f | %.1f | %s |\n", k, median(capture), median(update),
                    median(rebind1), median(rebindAll), median(recording), exact ? "exact" : "FAILED");
    }
    return 0;
}
