// Token + position embedding, forward and a deterministic backward (no atomics): the twin of
// cpu::encoder_forward / encoder_backward.
#include "train/cuda/check.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {
namespace {

template <typename T>
__global__ void encoder_forward_kernel(T* out, const int32_t* tokens, const T* wte, const T* wpe, int Tn, int C,
                                       long long total) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long bt = i / C;
    const int c = static_cast<int>(i % C);
    const long long t = bt % Tn;
    out[i] = from_float<T>(to_float(wte[static_cast<long long>(tokens[bt]) * C + c]) + to_float(wpe[t * C + c]));
  }
}

// One thread per (t, c): the batch is summed in order.
template <typename T>
__global__ void wpe_backward_kernel(float* dwpe, const T* dout, int B, int Tn, int C) {
  const long long total = static_cast<long long>(Tn) * C;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float acc = 0.0f;
    for (int b = 0; b < B; ++b) acc += to_float(dout[static_cast<long long>(b) * total + i]);
    dwpe[i] += acc;
  }
}

// One block per distinct token: it alone writes that token's row of dwte, summing its positions in order.
template <typename T>
__global__ void wte_backward_kernel(float* dwte, const T* dout, const int32_t* tokens, const int32_t* offsets,
                                    const int32_t* positions, int C) {
  const int u = blockIdx.x;
  const long long row = static_cast<long long>(tokens[u]) * C;
  const int begin = offsets[u], end = offsets[u + 1];
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float acc = 0.0f;
    for (int i = begin; i < end; ++i) acc += to_float(dout[static_cast<long long>(positions[i]) * C + c]);
    dwte[row + c] += acc;
  }
}

}  // namespace

template <typename T>
void encoder_forward(T* out, const int32_t* tokens, const T* wte, const T* wpe, int B, int Tn, int C,
                     cudaStream_t stream) {
  const long long total = static_cast<long long>(B) * Tn * C;
  encoder_forward_kernel<<<grid_for(total, 256), 256, 0, stream>>>(out, tokens, wte, wpe, Tn, C, total);
  check_launch("encoder_forward_kernel");
}

template <typename T>
void encoder_backward(float* dwte, float* dwpe, const T* dout, const int32_t* bucket_tokens,
                      const int32_t* bucket_offsets, const int32_t* bucket_positions, int buckets, int B, int Tn,
                      int C, cudaStream_t stream) {
  wpe_backward_kernel<<<grid_for(static_cast<long long>(Tn) * C, 256), 256, 0, stream>>>(dwpe, dout, B, Tn, C);
  check_launch("wpe_backward_kernel");
  if (buckets == 0) return;
  const int threads = C >= 256 ? 256 : ((C + 31) / 32) * 32;
  wte_backward_kernel<<<buckets, threads, 0, stream>>>(dwte, dout, bucket_tokens, bucket_offsets, bucket_positions, C);
  check_launch("wte_backward_kernel");
}

#define ISOFLOP_INSTANTIATE(T)                                                                                     \
  template void encoder_forward<T>(T*, const int32_t*, const T*, const T*, int, int, int, cudaStream_t);           \
  template void encoder_backward<T>(float*, float*, const T*, const int32_t*, const int32_t*, const int32_t*, int, \
                                    int, int, int, cudaStream_t);
ISOFLOP_INSTANTIATE(float)
ISOFLOP_INSTANTIATE(bf16)
#undef ISOFLOP_INSTANTIATE

}  // namespace isoflop::train::cuda
