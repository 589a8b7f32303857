// What a chain of kernels that only stream bytes costs on this device, in plain CUDA C (runtime API): the floor of
// the GPT-2 decode step's shape (issue 32). Each kernel reads its own region of one allocation (the regions of a
// token add up to about 570 MB, far beyond the L2) with 16-byte loads, eight in flight per thread, sums them and
// writes one float per warp. Captured into a graph and replayed; medians of the device time per replay (events).
//   token:    the step's 62 reads in its order and sizes (per layer QKV 7.1 MB, the KV cache 6.3 MB, the projection
//             2.4 MB, MLP up and down 9.4 MB each; then the two logits chunks, 100.7 and 53.7 MB), plain and with
//             programmatic dependent launch (each kernel issues its loads, then waits for its predecessor);
//   one read: the same bytes as one kernel (the bandwidth a single long read reaches);
//   K x S:    48 launches of S bytes each, chained, per launch.
// Every sum is checked against the host's. Built and run by scripts/gpu-run.sh (step streamfloor):
//   nvcc -O2 -arch=sm_90 -o stream_floor stream_floor.cu && ./stream_floor ROUNDS
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t rc_ = (call); if (rc_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(rc_)); std::exit(1); } } while (0)

template <bool DEPENDENT>
__global__ void stream_read(const float4* __restrict__ w, size_t n4, float* __restrict__ out) {
    size_t stride = (size_t) gridDim.x * blockDim.x, i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
    float4 a[8];
    #pragma unroll
    for (int u = 0; u < 8; u++) a[u] = i + u * stride < n4 ? w[i + u * stride] : make_float4(0, 0, 0, 0);
    if (DEPENDENT) asm volatile("griddepcontrol.wait;" ::: "memory");
    float acc = 0.0f;
    for (;;) {
        #pragma unroll
        for (int u = 0; u < 8; u++) acc += (a[u].x + a[u].y) + (a[u].z + a[u].w);
        i += 8 * stride;
        if (i >= n4) break;
        #pragma unroll
        for (int u = 0; u < 8; u++) a[u] = i + u * stride < n4 ? w[i + u * stride] : make_float4(0, 0, 0, 0);
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = acc;
}

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

struct Read { size_t offset4, n4; };

struct Floor {
    const float4* w; float* out; cudaStream_t s; int units;
    // a block per 2,048 float4 (eight loads a thread), at most 8 blocks a unit
    unsigned blocks(size_t n4) const {
        size_t b = (n4 + 2047) / 2048;
        return (unsigned) std::min<size_t>(b, (size_t) units * 8);
    }
    void launch(const Read& r, bool dependent) const {
        if (!dependent) {
            stream_read<false><<<blocks(r.n4), 256, 0, s>>>(w + r.offset4, r.n4, out);
            return;
        }
        cudaLaunchAttribute attribute[1] = {};
        attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(blocks(r.n4)); config.blockDim = dim3(256); config.stream = s;
        config.attrs = attribute; config.numAttrs = 1;
        CHECK(cudaLaunchKernelEx(&config, stream_read<true>, w + r.offset4, r.n4, out));
    }
    cudaGraphExec_t capture(const std::vector<Read>& reads, bool dependent) const {
        cudaGraph_t g; cudaGraphExec_t e;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (const Read& r : reads) launch(r, dependent);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&e, g, 0));
        CHECK(cudaGraphDestroy(g));
        return e;
    }
    // the median device time of one replay, in µs, over `rounds` timed replays after 10 untimed
    double time(cudaGraphExec_t e, int rounds) const {
        cudaEvent_t a, b;
        CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
        for (int r = 0; r < 10; r++) CHECK(cudaGraphLaunch(e, s));
        std::vector<double> t;
        for (int r = 0; r < rounds; r++) {
            CHECK(cudaEventRecord(a, s));
            CHECK(cudaGraphLaunch(e, s));
            CHECK(cudaEventRecord(b, s));
            CHECK(cudaEventSynchronize(b));
            float ms; CHECK(cudaEventElapsedTime(&ms, a, b));
            t.push_back(ms * 1e3);
        }
        CHECK(cudaEventDestroy(a)); CHECK(cudaEventDestroy(b));
        return median(t);
    }
};

static size_t bytes(const std::vector<Read>& reads) {
    size_t n = 0;
    for (const Read& r : reads) n += r.n4 * 16;
    return n;
}

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
    cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
    // the step's reads, fp32, T = 1,024: d = 768, 12 layers, 12 heads, vocabulary 50,257 in chunks of 32,768 rows
    const size_t d = 768, mlp = 4 * d, kv = 2 * 1024 * d, vocab = 50257, chunk = 32768;
    std::vector<size_t> sizes; // floats
    for (int l = 0; l < 12; l++) {
        for (size_t n : {3 * d * d, kv, d * d, mlp * d, d * mlp}) sizes.push_back(n);
    }
    sizes.push_back(chunk * d);
    sizes.push_back((vocab - chunk) * d);
    std::vector<Read> token;
    size_t at = 0;
    for (size_t n : sizes) { token.push_back({at, n / 4}); at += (n / 4 + 63) / 64 * 64; }
    size_t total4 = std::max<size_t>(at, 48 * (9437184 / 16)); // room for 48 x 9.4 MB too
    float4* w; float* out;
    CHECK(cudaMalloc(&w, total4 * 16));
    CHECK(cudaMalloc(&out, (size_t) prop.multiProcessorCount * 8 * 256 / 32 * sizeof(float)));
    { // small integers, so every sum is exact in fp32 and checkable
        std::vector<float> host(total4 * 4);
        for (size_t i = 0; i < host.size(); i++) host[i] = (float) ((i * 2654435761u >> 13) % 3);
        CHECK(cudaMemcpy(w, host.data(), total4 * 16, cudaMemcpyHostToDevice));
    }
    cudaStream_t s; CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Floor f{w, out, s, prop.multiProcessorCount};

    std::printf("# A chain of kernels that only stream bytes (%s, %d units)\n\n", prop.name, prop.multiProcessorCount);
    std::printf("| chain | launches | MB | µs per replay | µs per launch | TB/s |\n|---|---|---|---|---|---|\n");
    auto row = [&](const char* name, const std::vector<Read>& reads, bool dependent) {
        cudaGraphExec_t e = f.capture(reads, dependent);
        double us = f.time(e, rounds);
        double mb = bytes(reads) / 1e6;
        std::printf("| %s | %zu | %.1f | %.1f | %.2f | %.2f |\n", name, reads.size(), mb, us, us / reads.size(),
                    mb / us); // MB per µs is TB/s
        std::printf("stream-floor: chain=%s launches=%zu mb=%.1f us=%.1f\n", name, reads.size(), mb, us);
        CHECK(cudaGraphExecDestroy(e));
        return us;
    };
    row("token, plain", token, false);
    row("token, dependent launch", token, true);
    row("token as one read", std::vector<Read>{{0, at}}, false);
    for (size_t n : {d * d, 3 * d * d, mlp * d}) {
        std::vector<Read> same;
        for (int k = 0; k < 48; k++) same.push_back({k * ((n / 4 + 63) / 64 * 64), n / 4});
        char name[64]; std::snprintf(name, sizeof name, "48 x %.1f MB", n * 4 / 1e6);
        row(name, same, false);
    }
    // the check: one read of the first region, its warp sums added on the host, against the host's own sum
    {
        Read r = token[0];
        stream_read<false><<<f.blocks(r.n4), 256, 0, s>>>(w + r.offset4, r.n4, out);
        CHECK(cudaStreamSynchronize(s));
        size_t warps = (size_t) f.blocks(r.n4) * 256 / 32;
        std::vector<float> sums(warps);
        CHECK(cudaMemcpy(sums.data(), out, warps * sizeof(float), cudaMemcpyDeviceToHost));
        double got = 0, want = 0;
        for (float v : sums) got += v;
        for (size_t i = 0; i < r.n4 * 4; i++) want += (double) (((r.offset4 * 4 + i) * 2654435761u >> 13) % 3);
        std::printf("\ncheck: the first read's sum %.0f, the host's %.0f: %s\n", got, want, got == want ? "exact" : "WRONG");
        if (got != want) return 1;
    }
    return 0;
}
