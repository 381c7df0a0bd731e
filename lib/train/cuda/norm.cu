// The global gradient norm's sum of squares: a fixed grid of blocks, each summing a fixed grid-stride subset
// in double and reducing it in a fixed tree, then one block adding the partials in a fixed tree. No atomics,
// so the result is the same bits on every run (the CPU's l2_norm_host is deterministic the same way).
#include "train/cuda/check.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {
namespace {

constexpr int kThreads = 256;

__device__ double block_tree_sum(double value) {
  __shared__ double shared[kThreads];
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  return shared[0];
}

__global__ void sum_squares_partial_kernel(double* partial, const float* x, size_t n) {
  double acc = 0.0;
  for (size_t i = blockIdx.x * static_cast<size_t>(kThreads) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * kThreads) {
    const double v = x[i];
    acc += v * v;
  }
  const double total = block_tree_sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void sum_partials_kernel(double* result, const double* partial, int count) {
  double acc = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) acc += partial[i];
  const double total = block_tree_sum(acc);
  if (threadIdx.x == 0) *result = total;
}

}  // namespace

void sum_squares(double* result, double* partial, const float* x, size_t n, cudaStream_t stream) {
  sum_squares_partial_kernel<<<kNormBlocks, kThreads, 0, stream>>>(partial, x, n);
  check_launch("sum_squares_partial_kernel");
  sum_partials_kernel<<<1, kThreads, 0, stream>>>(result, partial, kNormBlocks);
  check_launch("sum_partials_kernel");
}

}  // namespace isoflop::train::cuda
