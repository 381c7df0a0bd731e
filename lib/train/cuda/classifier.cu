// The fused classifier: softmax over the vocabulary, the cross-entropy loss and its gradient in one kernel,
// one block per position (the twin of cpu::crossentropy_forward + crossentropy_backward). Logits stay fp32 in
// both precisions: bf16 logits would round by up to 2⁻⁸ relative, i.e. several 0.01 nats at typical
// magnitudes, which is the whole bf16 loss tolerance.
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"
#include "train/cuda/reduce.cuh"

namespace isoflop::train::cuda {
namespace {

constexpr int kThreads = 512;

// Merges two (max, Σ exp(x − max)) pairs of an online softmax; (−∞, 0) is the empty pair.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  const float mx = fmaxf(m, m2);
  if (mx == -INFINITY) return;  // both empty
  s = s * expf(m - mx) + s2 * expf(m2 - mx);
  m = mx;
}

template <typename T>
__global__ void crossentropy_kernel(float* losses, T* dlogits, const float* logits, const int32_t* targets, int V,
                                    float scale) {
  __shared__ float shared_m[kThreads / kWarpSize], shared_s[kThreads / kWarpSize];
  __shared__ float shared_target_logit;
  const int row = blockIdx.x;
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const float* x = logits + static_cast<long long>(row) * V;
  const int target = targets[row];
  // Read before the barriers below: in fp32 mode dlogits is this very row, rewritten after them.
  if (threadIdx.x == 0) shared_target_logit = x[target];

  float m = -INFINITY, s = 0.0f;
  for (int v = threadIdx.x; v < V; v += kThreads) {
    const float xv = x[v];
    if (xv > m) {
      s = s * expf(m - xv) + 1.0f;
      m = xv;
    } else {
      s += expf(xv - m);
    }
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
    const float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
    merge(m, s, m2, s2);
  }
  if (lane == 0) {
    shared_m[warp] = m;
    shared_s[warp] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float bm = shared_m[0], bs = shared_s[0];
    for (int w = 1; w < kThreads / kWarpSize; ++w) merge(bm, bs, shared_m[w], shared_s[w]);
    shared_m[0] = bm;
    shared_s[0] = bs;
    // −log p[target] = log Σ exp(x − max) − (x[target] − max)
    losses[row] = logf(bs) - (shared_target_logit - bm);
  }
  __syncthreads();
  if (!dlogits) return;
  const float mx = shared_m[0], inv = 1.0f / shared_s[0];
  T* d = dlogits + static_cast<long long>(row) * V;
  for (int v = threadIdx.x; v < V; v += kThreads) {
    const float p = expf(x[v] - mx) * inv;
    d[v] = from_float<T>((p - (v == target ? 1.0f : 0.0f)) * scale);
  }
}

}  // namespace

template <typename T>
void crossentropy_forward_backward(float* losses, T* dlogits, const float* logits, const int32_t* targets, int N,
                                   int V, float scale, cudaStream_t stream) {
  crossentropy_kernel<<<N, kThreads, 0, stream>>>(losses, dlogits, logits, targets, V, scale);
  check_launch("crossentropy_kernel");
}

template void crossentropy_forward_backward<float>(float*, float*, const float*, const int32_t*, int, int, float,
                                                   cudaStream_t);
template void crossentropy_forward_backward<bf16>(float*, bf16*, const float*, const int32_t*, int, int, float,
                                                  cudaStream_t);

}  // namespace isoflop::train::cuda
