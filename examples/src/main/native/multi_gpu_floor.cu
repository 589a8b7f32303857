// The plain CUDA program MultiDeviceBench (issue 19) is compared with, on the same work: per device a graph of K
// dependent saxpy launches over N floats, replayed R times from one host thread per device. Each round times every
// device alone, then all at once (threads released together; wall time from the release to the last device's
// synchronize), and checks each device's result exactly. Prints the same markdown row as the Java bench.
//   nvcc -O2 -arch=sm_90 -std=c++17 -o multi_gpu_floor multi_gpu_floor.cu && ./multi_gpu_floor R ROUNDS NxK...
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

__global__ void saxpy(const float* x, float* y, const int* info) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < info[0]) y[i] = __fadd_rn(__fmul_rn(__int_as_float(info[1]), x[i]), y[i]);
}

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); std::exit(1); } } while (0)

using Clock = std::chrono::steady_clock;
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

struct Device {
    int ordinal, n;
    cudaStream_t stream;
    float *x, *y;
    int* info;
    cudaGraphExec_t exec;
    std::vector<float> hx, hy0;

    void setup(int k) {
        CHECK(cudaSetDevice(ordinal));
        CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        hx.resize(n); hy0.resize(n);
        for (int i = 0; i < n; i++) { hx[i] = i % 7; hy0[i] = i % 3; }
        CHECK(cudaMalloc(&x, n * 4)); CHECK(cudaMalloc(&y, n * 4)); CHECK(cudaMalloc(&info, 8));
        float a = 2.0f; int hinfo[2] = {n, *reinterpret_cast<int*>(&a)};
        CHECK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(info, hinfo, 8, cudaMemcpyHostToDevice));
        cudaGraph_t graph;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int j = 0; j < k; j++) saxpy<<<(n + 255) / 256, 256, 0, stream>>>(x, y, info);
        CHECK(cudaStreamEndCapture(stream, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphUpload(exec, stream));
        CHECK(cudaGraphDestroy(graph));
    }

    // resets y, then replays R times and synchronizes; returns [begin, end]
    std::pair<Clock::time_point, Clock::time_point> run(int replays, std::atomic<int>* gate, int parties) {
        CHECK(cudaSetDevice(ordinal));
        CHECK(cudaMemcpyAsync(y, hy0.data(), n * 4, cudaMemcpyHostToDevice, stream));
        CHECK(cudaStreamSynchronize(stream));
        if (gate) { gate->fetch_add(1); while (gate->load() < parties) {} }
        auto begin = Clock::now();
        for (int r = 0; r < replays; r++) CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        return {begin, Clock::now()};
    }

    bool exact(long kernels) {
        std::vector<float> got(n);
        CHECK(cudaSetDevice(ordinal));
        CHECK(cudaMemcpy(got.data(), y, n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) if (got[i] != hy0[i] + 2.0f * kernels * hx[i]) return false;
        return true;
    }
};

int main(int argc, char** argv) {
    int replays = argc > 1 ? std::atoi(argv[1]) : 200;
    int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    std::printf("| N x K | devices | alone µs/kernel (per device) | together µs/kernel (per device) "
                "| aggregate vs one device | exact |\n|---|---|---|---|---|---|\n");
    for (int a = 3; a < argc; a++) {
        int n = 0, k = 0;
        std::sscanf(argv[a], "%dx%d", &n, &k);
        std::vector<Device> devices(count);
        for (int d = 0; d < count; d++) { devices[d].ordinal = d; devices[d].n = n; devices[d].setup(k); }
        long kernels = (long) replays * k;
        bool exact = true;
        std::vector<std::vector<double>> alone(count);
        std::vector<double> together;
        for (auto& d : devices) d.run(replays / 4 + 1, nullptr, 0);
        for (int round = 0; round < rounds; round++) {
            for (int d = 0; d < count; d++) {
                auto span = devices[d].run(replays, nullptr, 0);
                alone[d].push_back(std::chrono::duration<double, std::micro>(span.second - span.first).count() / kernels);
                exact &= devices[d].exact(kernels);
            }
            std::atomic<int> gate{0};
            std::vector<std::pair<Clock::time_point, Clock::time_point>> spans(count);
            std::vector<std::thread> threads;
            for (int d = 0; d < count; d++)
                threads.emplace_back([&, d] { spans[d] = devices[d].run(replays, &gate, count); });
            for (auto& t : threads) t.join();
            auto first = spans[0].first, last = spans[0].second;
            for (auto& s : spans) { first = std::min(first, s.first); last = std::max(last, s.second); }
            together.push_back(std::chrono::duration<double, std::micro>(last - first).count() / kernels);
            for (auto& d : devices) exact &= d.exact(kernels);
        }
        double mean = 0;
        std::printf("| %s x %d | %d | ", n % 1024 == 0 ? (std::to_string(n / 1024) + "K").c_str() : std::to_string(n).c_str(),
                    k, count);
        for (int d = 0; d < count; d++) { double m = median(alone[d]); mean += m / count; std::printf("%s%.3f", d ? " / " : "", m); }
        double both = median(together);
        std::printf(" | %.3f | %.2fx | %s |\n", both, count * mean / both, exact ? "exact" : "WRONG");
    }
    return 0;
}
