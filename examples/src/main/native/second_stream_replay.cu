// Reproduces, in plain CUDA C with no GraphRT, why a graph replays slower on a second stream: once a stream has
// launched kernels eagerly, graph replays on every other stream of the context take longer per kernel (on an
// NVIDIA H200, driver 580: about 1.19 vs 1.01 us for 1000 dependent 1K-element saxpy nodes), for the rest of
// the context's life. Without eager launches, every stream replays at the same speed. Run the clean case
// first: the effect does not go away when the streams that caused it are destroyed.
//   nvcc -O2 -arch=sm_90 -o second_stream_replay second_stream_replay.cu && ./second_stream_replay
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void saxpy(const float* x, float* y, const int* info) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < info[0]) y[i] = __fadd_rn(__fmul_rn(__int_as_float(info[1]), x[i]), y[i]);
}

// Optionally 1000 eager launches on s, then capture 1000 launches, replay 9 times: median us per kernel.
static double replay_micros(cudaStream_t s, bool eager_first, float* x, float* y, int* info) {
    if (eager_first) {
        for (int j = 0; j < 1000; j++) saxpy<<<4, 256, 0, s>>>(x, y, info);
        cudaStreamSynchronize(s);
    }
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    for (int j = 0; j < 1000; j++) saxpy<<<4, 256, 0, s>>>(x, y, info);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&ge, g, 0);
    cudaGraphUpload(ge, s);
    std::vector<double> t;
    for (int r = -3; r < 9; r++) {
        auto a = std::chrono::steady_clock::now();
        cudaGraphLaunch(ge, s);
        cudaStreamSynchronize(s);
        if (r >= 0) t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count() / 1000);
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    float* x;
    int* info;
    cudaMalloc(&x, 8192);
    cudaMalloc(&info, 256);
    float* y = x + 1024;
    int h[2] = {1024, 0x40000000};
    cudaMemcpy(info, h, 8, cudaMemcpyHostToDevice);
    for (bool eager : {false, true}) {
        cudaStream_t a, b;
        cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
        double first = replay_micros(a, eager, x, y, info);
        cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
        double second = replay_micros(b, eager, x, y, info);
        std::printf("eager launches before each capture: %s | graph replay us/kernel: first stream %.2f, second stream %.2f\n",
                    eager ? "yes" : "no ", first, second);
        cudaStreamDestroy(a);
        cudaStreamDestroy(b);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
