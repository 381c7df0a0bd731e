// The two activation types of the CUDA backend: fp32 (parity mode) and bf16 (training mode). Kernels load
// through to_float and store through from_float<T>, so every kernel computes in fp32 whatever it stores.
#pragma once

#include <cuda_bf16.h>
#include <library_types.h>

namespace isoflop::train::cuda {

using bf16 = __nv_bfloat16;

template <typename T>
struct DType;
template <>
struct DType<float> {
  static constexpr cudaDataType_t kCuda = CUDA_R_32F;
};
template <>
struct DType<bf16> {
  static constexpr cudaDataType_t kCuda = CUDA_R_16BF;
};

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(bf16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ bf16 from_float<bf16>(float x) {
  return __float2bfloat16(x);  // round to nearest even
}

}  // namespace isoflop::train::cuda
