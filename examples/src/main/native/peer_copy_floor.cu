// The plain CUDA figure PeerCopyBench (issue 19) is compared with: a copy of MiB from device 0 to device 1 with
// cudaMemcpyPeerAsync, timed like the Java bench (host clock around each copy and its stream synchronize; median of
// COPIES after one warm-up), first without peer access, then with it enabled both ways. GB/s = 10^9 bytes/s.
//   nvcc -O2 -std=c++17 -o peer_copy_floor peer_copy_floor.cu && ./peer_copy_floor MiB COPIES
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); std::exit(1); } } while (0)

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

static double rate(void* dst, void* src, size_t bytes, int copies, cudaStream_t s) {
    std::vector<double> rates;
    CHECK(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < copies; i++) {
        auto a = std::chrono::steady_clock::now();
        CHECK(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, s));
        CHECK(cudaStreamSynchronize(s));
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
        rates.push_back(bytes / secs / 1e9);
    }
    return median(rates);
}

int main(int argc, char** argv) {
    size_t mib = argc > 1 ? std::atoi(argv[1]) : 256;
    int copies = argc > 2 ? std::atoi(argv[2]) : 20;
    size_t bytes = mib << 20;
    int count = 0, can01 = 0, can10 = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) { std::printf("needs two devices; found %d\n", count); return 2; }
    CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    void *src, *dst;
    cudaStream_t s;
    CHECK(cudaSetDevice(1)); CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaSetDevice(0)); CHECK(cudaMalloc(&src, bytes)); CHECK(cudaMemset(src, 7, bytes));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    double without = rate(dst, src, bytes, copies, s);
    if (can01) { CHECK(cudaSetDevice(0)); CHECK(cudaDeviceEnablePeerAccess(1, 0)); }
    if (can10) { CHECK(cudaSetDevice(1)); CHECK(cudaDeviceEnablePeerAccess(0, 0)); }
    CHECK(cudaSetDevice(0));
    double with = rate(dst, src, bytes, copies, s);
    std::printf("| plain CUDA, %zu MiB, device 0 -> 1 | GB/s (median of %d) |\n|---|---|\n", mib, copies);
    std::printf("| cudaMemcpyPeerAsync, no peer access | %.1f |\n", without);
    std::printf("| cudaMemcpyPeerAsync, peer access %s | %.1f |\n", can01 && can10 ? "on" : "not possible", with);
    return 0;
}
