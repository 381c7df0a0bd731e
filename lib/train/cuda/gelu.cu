// GELU with the tanh approximation (Hendrycks & Gimpel 2016, eq. for GELU ≈ 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))),
// as GPT-2 and cpu::gelu_forward use it), forward and backward.
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {
namespace {

constexpr float kGeluScale = 0.7978845608028654f;  // √(2/π)
constexpr float kGeluCubic = 0.044715f;

template <typename T>
__global__ void gelu_forward_kernel(T* out, const T* inp, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float x = to_float(inp[i]);
    out[i] = from_float<T>(0.5f * x * (1.0f + tanhf(kGeluScale * (x + kGeluCubic * x * x * x))));
  }
}

template <typename T>
__global__ void gelu_backward_kernel(T* dinp, const T* inp, const T* dout, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float x = to_float(inp[i]);
    const float th = tanhf(kGeluScale * (x + kGeluCubic * x * x * x));
    const float sech2 = 1.0f - th * th;
    const float local = 0.5f * (1.0f + th) + x * 0.5f * sech2 * kGeluScale * (1.0f + 3.0f * kGeluCubic * x * x);
    dinp[i] = from_float<T>(local * to_float(dout[i]));  // read before write: dinp may be dout
  }
}

}  // namespace

template <typename T>
void gelu_forward(T* out, const T* inp, long long n, cudaStream_t stream) {
  gelu_forward_kernel<<<grid_for(n, 256), 256, 0, stream>>>(out, inp, n);
  check_launch("gelu_forward_kernel");
}

template <typename T>
void gelu_backward(T* dinp, const T* inp, const T* dout, long long n, cudaStream_t stream) {
  gelu_backward_kernel<<<grid_for(n, 256), 256, 0, stream>>>(dinp, inp, dout, n);
  check_launch("gelu_backward_kernel");
}

template void gelu_forward<float>(float*, const float*, long long, cudaStream_t);
template void gelu_forward<bf16>(bf16*, const bf16*, long long, cudaStream_t);
template void gelu_backward<float>(float*, const float*, const float*, long long, cudaStream_t);
template void gelu_backward<bf16>(bf16*, const bf16*, const bf16*, long long, cudaStream_t);

}  // namespace isoflop::train::cuda
