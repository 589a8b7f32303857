// Issue 33: NCCL's own all-reduce time in the same job as AllReduceBench, the plain C floor it is compared with.
// One process, ranks 0..n-1 on devices 0..n-1 (ncclCommInitAll), a float32 sum from one buffer into another on every rank (out of place), issued in
// one group, timed to the last rank's stream synchronize; 5 untimed, then the median of `rounds`.
// Prints "bytes microseconds" a line. Usage: nccl_allreduce_floor ranks rounds MiB...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>

#define CHECK(call) do { auto rc_ = (call); if (rc_ != 0) { \
    std::fprintf(stderr, "%s failed: %d at line %d\n", #call, (int) rc_, __LINE__); std::exit(1); } } while (0)

int main(int argc, char **argv) {
  int want = argc > 1 ? std::atoi(argv[1]) : 0;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  int n = want <= 0 ? devices : std::min(want, devices);
  std::vector<int> list(n);
  for (int r = 0; r < n; r++) list[r] = r;
  std::vector<ncclComm_t> comms(n);
  CHECK(ncclCommInitAll(comms.data(), n, list.data()));
  std::vector<cudaStream_t> streams(n);
  for (int r = 0; r < n; r++) { CHECK(cudaSetDevice(r)); CHECK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking)); }
  std::vector<long> sizes;
  for (int i = 3; i < argc; i++) sizes.push_back(std::atol(argv[i]));
  if (sizes.empty()) sizes = {8, 32, 128, 512, 1024};
  for (long mib : sizes) {
    size_t bytes = (size_t) mib << 20, count = bytes / 4;
    std::vector<float *> data(n), sums(n);
    for (int r = 0; r < n; r++) {
      CHECK(cudaSetDevice(r));
      CHECK(cudaMalloc(&data[r], bytes));
      CHECK(cudaMalloc(&sums[r], bytes));
      CHECK(cudaMemset(data[r], 0, bytes));
    }
    auto once = [&] {
      CHECK(ncclGroupStart());
      for (int r = 0; r < n; r++) CHECK(ncclAllReduce(data[r], sums[r], count, ncclFloat32, ncclSum, comms[r], streams[r]));
      CHECK(ncclGroupEnd());
      for (int r = 0; r < n; r++) { CHECK(cudaSetDevice(r)); CHECK(cudaStreamSynchronize(streams[r])); }
    };
    for (int w = 0; w < 5; w++) once();
    std::vector<double> micros(rounds);
    for (int i = 0; i < rounds; i++) {
      auto t0 = std::chrono::steady_clock::now();
      once();
      micros[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    std::sort(micros.begin(), micros.end());
    std::printf("%zu %.1f\n", bytes, micros[rounds / 2]);
    for (int r = 0; r < n; r++) { CHECK(cudaSetDevice(r)); CHECK(cudaFree(data[r])); CHECK(cudaFree(sums[r])); }
  }
  for (int r = 0; r < n; r++) CHECK(ncclCommDestroy(comms[r]));
  return 0;
}
