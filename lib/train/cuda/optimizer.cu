// AdamW (Loshchilov & Hutter 2019, decoupled weight decay) on the fp32 master parameters, written operation
// for operation as adamw_update_host with explicitly rounded intrinsics (no contraction into fused
// multiply-adds), so that the same inputs give the same bits as the host; and the per-step conversion of the
// master parameters to the GEMMs' input type.
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {
namespace {

__global__ void adamw_kernel(float* params, float* m, float* v, const float* grads, size_t n, AdamWScalars s) {
  const float one_minus_b1 = 1.0f - s.beta1, one_minus_b2 = 1.0f - s.beta2;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float g = __fmul_rn(grads[i], s.grad_scale);
    const float mi = __fadd_rn(__fmul_rn(s.beta1, m[i]), __fmul_rn(one_minus_b1, g));
    const float vi = __fadd_rn(__fmul_rn(s.beta2, v[i]), __fmul_rn(__fmul_rn(one_minus_b2, g), g));
    m[i] = mi;
    v[i] = vi;
    const float mhat = __fmul_rn(mi, s.inv_c1), vhat = __fmul_rn(vi, s.inv_c2);
    const float p = params[i];
    const float step = __fadd_rn(__fdiv_rn(mhat, __fadd_rn(__fsqrt_rn(vhat), s.eps)), __fmul_rn(s.weight_decay, p));
    params[i] = __fsub_rn(p, __fmul_rn(s.lr, step));
  }
}

template <typename T>
__global__ void convert_kernel(T* out, const float* in, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = from_float<T>(in[i]);
}

}  // namespace

void adamw_update(float* params, float* m, float* v, const float* grads, size_t n, const AdamWScalars& s,
                  cudaStream_t stream) {
  if (n == 0) return;
  adamw_kernel<<<grid_for(static_cast<long long>(n), 256), 256, 0, stream>>>(params, m, v, grads, n, s);
  check_launch("adamw_kernel");
}

template <typename T>
void convert_parameters(T* out, const float* in, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  convert_kernel<<<grid_for(static_cast<long long>(n), 256), 256, 0, stream>>>(out, in, n);
  check_launch("convert_kernel");
}

template void convert_parameters<float>(float*, const float*, size_t, cudaStream_t);
template void convert_parameters<bf16>(bf16*, const float*, size_t, cudaStream_t);

}  // namespace isoflop::train::cuda
