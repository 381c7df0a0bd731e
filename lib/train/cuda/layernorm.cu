// LayerNorm forward and backward (the twin of cpu::layernorm_forward / layernorm_backward): one warp per row
// for the normalisation and dinp, a deterministic column sum for dw and db.
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"
#include "train/cuda/reduce.cuh"

namespace isoflop::train::cuda {
namespace {

constexpr float kLayerNormEps = 1e-5f;  // GPT-2's LayerNorm epsilon, as the CPU reference

template <typename T>
__global__ void layernorm_forward_kernel(T* out, float* mean, float* rstd, const T* inp, const T* w, const T* b,
                                         int N, int C) {
  const int lane = threadIdx.x % kWarpSize;
  const int row = blockIdx.x * kRowWarps + threadIdx.x / kWarpSize;
  if (row >= N) return;  // warp-uniform
  const T* x = inp + static_cast<long long>(row) * C;
  float sum = 0.0f;
  for (int c = lane; c < C; c += kWarpSize) sum += to_float(x[c]);
  const float m = warp_sum(sum) / C;
  float var = 0.0f;
  for (int c = lane; c < C; c += kWarpSize) {
    const float d = to_float(x[c]) - m;
    var += d * d;
  }
  const float s = 1.0f / sqrtf(warp_sum(var) / C + kLayerNormEps);
  T* o = out + static_cast<long long>(row) * C;
  for (int c = lane; c < C; c += kWarpSize)
    o[c] = from_float<T>((to_float(x[c]) - m) * s * to_float(w[c]) + to_float(b[c]));
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = s;
  }
}

// dinp += rstd · (dnorm − mean(dnorm) − norm · mean(dnorm · norm)), dnorm = w ⊙ dout.
template <typename T>
__global__ void layernorm_backward_kernel(T* dinp, const T* dout, const T* inp, const T* w, const float* mean,
                                          const float* rstd, int N, int C) {
  const int lane = threadIdx.x % kWarpSize;
  const int row = blockIdx.x * kRowWarps + threadIdx.x / kWarpSize;
  if (row >= N) return;  // warp-uniform
  const long long base = static_cast<long long>(row) * C;
  const T* x = inp + base;
  const T* d = dout + base;
  T* di = dinp + base;
  const float m = mean[row], s = rstd[row];
  float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
  for (int c = lane; c < C; c += kWarpSize) {
    const float norm = (to_float(x[c]) - m) * s;
    const float dnorm = to_float(w[c]) * to_float(d[c]);
    dnorm_mean += dnorm;
    dnorm_norm_mean += dnorm * norm;
  }
  dnorm_mean = warp_sum(dnorm_mean) / C;
  dnorm_norm_mean = warp_sum(dnorm_norm_mean) / C;
  for (int c = lane; c < C; c += kWarpSize) {
    const float norm = (to_float(x[c]) - m) * s;
    const float dnorm = to_float(w[c]) * to_float(d[c]);
    di[c] = from_float<T>(to_float(di[c]) + s * (dnorm - dnorm_mean - norm * dnorm_norm_mean));
  }
}

// dw[c] += Σ_n norm[n,c] · dout[n,c];  db[c] += Σ_n dout[n,c].
template <typename T>
struct LayerNormParamTerms {
  const T* dout;
  const T* inp;
  const float* mean;
  const float* rstd;
  int C;
  __device__ void operator()(int n, int c, float* acc) const {
    const long long i = static_cast<long long>(n) * C + c;
    const float d = to_float(dout[i]);
    acc[0] += (to_float(inp[i]) - mean[n]) * rstd[n] * d;
    acc[1] += d;
  }
};

}  // namespace

template <typename T>
void layernorm_forward(T* out, float* mean, float* rstd, const T* inp, const T* w, const T* b, int N, int C,
                       cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((N + kRowWarps - 1) / kRowWarps);
  layernorm_forward_kernel<<<blocks, kRowWarps * kWarpSize, 0, stream>>>(out, mean, rstd, inp, w, b, N, C);
  check_launch("layernorm_forward_kernel");
}

template <typename T>
void layernorm_backward(T* dinp, float* dw, float* db, float* scratch, const T* dout, const T* inp, const T* w,
                        const float* mean, const float* rstd, int N, int C, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((N + kRowWarps - 1) / kRowWarps);
  layernorm_backward_kernel<<<blocks, kRowWarps * kWarpSize, 0, stream>>>(dinp, dout, inp, w, mean, rstd, N, C);
  check_launch("layernorm_backward_kernel");
  column_sums<2>(ColumnOutputs<2>{{dw, db}}, scratch, LayerNormParamTerms<T>{dout, inp, mean, rstd, C}, N, C, stream);
}

#define ISOFLOP_INSTANTIATE(T)                                                                                    \
  template void layernorm_forward<T>(T*, float*, float*, const T*, const T*, const T*, int, int, cudaStream_t);   \
  template void layernorm_backward<T>(T*, float*, float*, float*, const T*, const T*, const T*, const float*,     \
                                      const float*, int, int, cudaStream_t);
ISOFLOP_INSTANTIATE(float)
ISOFLOP_INSTANTIATE(bf16)
#undef ISOFLOP_INSTANTIATE

}  // namespace isoflop::train::cuda
