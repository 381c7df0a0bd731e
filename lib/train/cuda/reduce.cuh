// Reductions shared by the kernels: warp sums and maxima, and a deterministic two-stage column sum
// (out[c] += Σ_n f(n, c)) used for bias and LayerNorm parameter gradients. The column sum never uses atomics:
// every row slice writes its own partial, and a second kernel adds the partials in slice order, so results
// are bitwise reproducible for a given shape.
#pragma once

#include <cuda_runtime.h>

#include "train/cuda/check.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {

constexpr int kWarpSize = 32;
constexpr int kRowWarps = 8;  // rows per block in the warp-per-row kernels (256 threads)

__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

__device__ __forceinline__ float warp_max(float x) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

// ---- column sums --------------------------------------------------------------------------------------------
constexpr int kColumnTile = 32;   // columns per block (one per lane)
constexpr int kColumnRows = 8;    // row groups per block

// Row slices for N rows: about 128 rows each, at most kMaxSlices.
inline int column_slices(long long rows) {
  const long long s = (rows + 127) / 128;
  return static_cast<int>(s < 1 ? 1 : (s > kMaxSlices ? kMaxSlices : s));
}

template <int K>
struct ColumnOutputs {
  float* out[K];
};

// partial[(k·slices + slice)·C + c] = Σ over the slice's rows of term k of f(n, c).
template <int K, class F>
__global__ void column_partial_kernel(float* partial, F f, int rows, int columns, int rows_per_slice) {
  const int c = blockIdx.x * kColumnTile + threadIdx.x;
  const int n0 = blockIdx.y * rows_per_slice;
  const int n1 = min(rows, n0 + rows_per_slice);
  float acc[K];
  for (int k = 0; k < K; ++k) acc[k] = 0.0f;
  if (c < columns)
    for (int n = n0 + static_cast<int>(threadIdx.y); n < n1; n += kColumnRows) f(n, c, acc);
  __shared__ float shared[K][kColumnRows][kColumnTile];
  for (int k = 0; k < K; ++k) shared[k][threadIdx.y][threadIdx.x] = acc[k];
  __syncthreads();
  if (threadIdx.y == 0 && c < columns) {
    for (int k = 0; k < K; ++k) {
      float s = 0.0f;
      for (int y = 0; y < kColumnRows; ++y) s += shared[k][y][threadIdx.x];
      partial[(static_cast<size_t>(k) * gridDim.y + blockIdx.y) * columns + c] = s;
    }
  }
}

template <int K>
__global__ void column_finish_kernel(ColumnOutputs<K> outs, const float* partial, int slices, int columns) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= columns) return;
  for (int k = 0; k < K; ++k) {
    float s = 0.0f;
    for (int i = 0; i < slices; ++i) s += partial[(static_cast<size_t>(k) * slices + i) * columns + c];
    outs.out[k][c] += s;
  }
}

// outs.out[k][c] += Σ_{n < rows} term k of f(n, c); f is a device functor `void(int n, int c, float* acc)` that
// adds its K terms into acc. scratch holds column_scratch_floats(K, columns) floats.
template <int K, class F>
void column_sums(ColumnOutputs<K> outs, float* scratch, F f, int rows, int columns, cudaStream_t stream) {
  const int slices = column_slices(rows);
  const int rows_per_slice = (rows + slices - 1) / slices;
  const dim3 grid((columns + kColumnTile - 1) / kColumnTile, slices);
  const dim3 block(kColumnTile, kColumnRows);
  column_partial_kernel<K><<<grid, block, 0, stream>>>(scratch, f, rows, columns, rows_per_slice);
  check_launch("column_partial_kernel");
  column_finish_kernel<K><<<(columns + 255) / 256, 256, 0, stream>>>(outs, scratch, slices, columns);
  check_launch("column_finish_kernel");
}

}  // namespace isoflop::train::cuda
