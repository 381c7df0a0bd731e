// Bias gradients: the column sums of the output gradient (cpu::matmul_backward's dbias), deterministic.
#include "train/cuda/dtype.cuh"
#include "train/cuda/kernels.cuh"
#include "train/cuda/reduce.cuh"

namespace isoflop::train::cuda {
namespace {

template <typename T>
struct BiasTerm {
  const T* dout;
  int OC;
  __device__ void operator()(int n, int c, float* acc) const {
    acc[0] += to_float(dout[static_cast<long long>(n) * OC + c]);
  }
};

}  // namespace

template <typename T>
void bias_backward(float* dbias, float* scratch, const T* dout, int N, int OC, cudaStream_t stream) {
  column_sums<1>(ColumnOutputs<1>{{dbias}}, scratch, BiasTerm<T>{dout, OC}, N, OC, stream);
}

template void bias_backward<float>(float*, float*, const float*, int, int, cudaStream_t);
template void bias_backward<bf16>(float*, float*, const bf16*, int, int, cudaStream_t);

}  // namespace isoflop::train::cuda
