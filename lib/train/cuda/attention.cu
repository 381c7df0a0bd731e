// Causal self-attention's own kernels (the twin of cpu::attention_forward / attention_backward): splitting qkv
// by head so that cuBLASLt's strided-batched GEMMs can run QKᵀ and AV over all (batch, head) pairs at once,
// merging the heads back, and the causal softmax with its backward, one warp per row (T ≤ 1024 keeps a row
// in L1).
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"
#include "train/cuda/reduce.cuh"

namespace isoflop::train::cuda {
namespace {

// Index i of a (B,NH,T,hs) tensor ↔ element (b, t, h·hs + d) of a (B,T,width) tensor.
struct HeadIndex {
  long long b, h, t, d;
  __device__ HeadIndex(long long i, int Tn, int NH, int hs) {
    d = i % hs;
    long long r = i / hs;
    t = r % Tn;
    r /= Tn;
    h = r % NH;
    b = r / NH;
  }
  __device__ long long in_rows(int Tn, long long width, int hs) const { return (b * Tn + t) * width + h * hs + d; }
};

template <typename T>
__global__ void split_heads_kernel(T* q, T* k, T* v, const T* qkv, int Tn, int NH, int hs, long long total) {
  const long long C = static_cast<long long>(NH) * hs;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long j = HeadIndex(i, Tn, NH, hs).in_rows(Tn, 3 * C, hs);
    q[i] = qkv[j];
    k[i] = qkv[j + C];
    v[i] = qkv[j + 2 * C];
  }
}

template <typename T>
__global__ void split_heads_backward_kernel(T* dqkv, const T* dq, const T* dk, const T* dv, int Tn, int NH, int hs,
                                            long long total) {
  const long long C = static_cast<long long>(NH) * hs;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long j = HeadIndex(i, Tn, NH, hs).in_rows(Tn, 3 * C, hs);
    dqkv[j] = dq[i];
    dqkv[j + C] = dk[i];
    dqkv[j + 2 * C] = dv[i];
  }
}

// to_heads = true: dst (B,NH,T,hs) ← src (B,T,C); false: dst (B,T,C) ← src (B,NH,T,hs).
template <typename T>
__global__ void heads_copy_kernel(T* dst, const T* src, bool to_heads, int Tn, int NH, int hs, long long total) {
  const long long C = static_cast<long long>(NH) * hs;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long j = HeadIndex(i, Tn, NH, hs).in_rows(Tn, C, hs);
    if (to_heads)
      dst[i] = src[j];
    else
      dst[j] = src[i];
  }
}

template <typename T>
__global__ void causal_softmax_forward_kernel(T* att, const float* preatt, int rows, int Tn) {
  const int lane = threadIdx.x % kWarpSize;
  const int row = blockIdx.x * kRowWarps + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // warp-uniform
  const int t = row % Tn;
  const float* x = preatt + static_cast<long long>(row) * Tn;
  T* y = att + static_cast<long long>(row) * Tn;
  float mx = -INFINITY;
  for (int j = lane; j <= t; j += kWarpSize) mx = fmaxf(mx, x[j]);
  mx = warp_max(mx);  // finite: column 0 is always visible
  float sum = 0.0f;
  for (int j = lane; j <= t; j += kWarpSize) sum += expf(x[j] - mx);
  const float inv = 1.0f / warp_sum(sum);
  for (int j = lane; j < Tn; j += kWarpSize) y[j] = from_float<T>(j <= t ? expf(x[j] - mx) * inv : 0.0f);
}

template <typename T>
__global__ void causal_softmax_backward_kernel(T* dpreatt, const float* datt, const T* att, int rows, int Tn) {
  const int lane = threadIdx.x % kWarpSize;
  const int row = blockIdx.x * kRowWarps + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // warp-uniform
  const int t = row % Tn;
  const long long base = static_cast<long long>(row) * Tn;
  const T* p = att + base;
  const float* dp = datt + base;
  T* ds = dpreatt + base;
  float dot = 0.0f;
  for (int j = lane; j <= t; j += kWarpSize) dot += to_float(p[j]) * dp[j];
  dot = warp_sum(dot);
  for (int j = lane; j < Tn; j += kWarpSize) ds[j] = from_float<T>(j <= t ? to_float(p[j]) * (dp[j] - dot) : 0.0f);
}

// Launches `kernel(args…, T, NH, hs, total)` with a thread for each of the `total` elements of a (B, NH, T, hs)
// head tensor; `what` names the launch in an error.
template <typename... KernelArgs, typename... Args>
void launch_per_head_element(void (*kernel)(KernelArgs...), const char* what, int B, int Tn, int NH, int hs,
                             cudaStream_t stream, Args... args) {
  const long long total = static_cast<long long>(B) * NH * Tn * hs;
  kernel<<<grid_for(total, 256), 256, 0, stream>>>(args..., Tn, NH, hs, total);
  check_launch(what);
}

}  // namespace

template <typename T>
void attention_split_heads(T* q, T* k, T* v, const T* qkv, int B, int Tn, int NH, int hs, cudaStream_t stream) {
  launch_per_head_element(split_heads_kernel<T>, "split_heads_kernel", B, Tn, NH, hs, stream, q, k, v, qkv);
}

template <typename T>
void attention_merge_heads(T* out, const T* y, int B, int Tn, int NH, int hs, cudaStream_t stream) {
  launch_per_head_element(heads_copy_kernel<T>, "heads_copy_kernel(merge)", B, Tn, NH, hs, stream, out, y, false);
}

template <typename T>
void attention_split_heads_backward(T* dqkv, const T* dq, const T* dk, const T* dv, int B, int Tn, int NH, int hs,
                                    cudaStream_t stream) {
  launch_per_head_element(split_heads_backward_kernel<T>, "split_heads_backward_kernel", B, Tn, NH, hs, stream, dqkv,
                          dq, dk, dv);
}

template <typename T>
void attention_merge_heads_backward(T* dy, const T* dout, int B, int Tn, int NH, int hs, cudaStream_t stream) {
  launch_per_head_element(heads_copy_kernel<T>, "heads_copy_kernel(split)", B, Tn, NH, hs, stream, dy, dout, true);
}

template <typename T>
void causal_softmax_forward(T* att, const float* preatt, int rows, int Tn, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((rows + kRowWarps - 1) / kRowWarps);
  causal_softmax_forward_kernel<<<blocks, kRowWarps * kWarpSize, 0, stream>>>(att, preatt, rows, Tn);
  check_launch("causal_softmax_forward_kernel");
}

template <typename T>
void causal_softmax_backward(T* dpreatt, const float* datt, const T* att, int rows, int Tn, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((rows + kRowWarps - 1) / kRowWarps);
  causal_softmax_backward_kernel<<<blocks, kRowWarps * kWarpSize, 0, stream>>>(dpreatt, datt, att, rows, Tn);
  check_launch("causal_softmax_backward_kernel");
}

#define ISOFLOP_INSTANTIATE(T)                                                                                    \
  template void attention_split_heads<T>(T*, T*, T*, const T*, int, int, int, int, cudaStream_t);                 \
  template void attention_merge_heads<T>(T*, const T*, int, int, int, int, cudaStream_t);                         \
  template void attention_split_heads_backward<T>(T*, const T*, const T*, const T*, int, int, int, int,           \
                                                  cudaStream_t);                                                  \
  template void attention_merge_heads_backward<T>(T*, const T*, int, int, int, int, cudaStream_t);                \
  template void causal_softmax_forward<T>(T*, const float*, int, int, cudaStream_t);                              \
  template void causal_softmax_backward<T>(T*, const float*, const T*, int, int, cudaStream_t);
ISOFLOP_INSTANTIATE(float)
ISOFLOP_INSTANTIATE(bf16)
#undef ISOFLOP_INSTANTIATE

}  // namespace isoflop::train::cuda
