// Tolerances and shapes shared by the per-layer parity tests of the CUDA backend against the CPU reference.
#pragma once

#include <type_traits>

#include "device.hpp"
#include "train/cpu/layers.hpp"
#include "train/cuda/gemm.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::test::gpu {

namespace cu = train::cuda;
namespace cpu = train::cpu;

// fp32 kernels against the fp32 CPU reference: both compute in fp32 (the CPU's LayerNorm statistics in double)
// and differ only in summation order over at most a few hundred terms, i.e. by a few ulps of the largest
// partial sum. 1e-5 of the tensor's largest entry is ~10× that; a wrong term or index is off by O(1).
constexpr double kFp32Tol = 1e-5;
// fp32 outputs of GEMMs with bf16 inputs: the products are exact in fp32, but tensor cores do not round the
// fp32 accumulation step by step as IEEE does, which costs up to a few 1e-5 over a few hundred terms.
constexpr double kBf16AccumulateTol = 1e-3;
// bf16 outputs: every store rounds to 8 significant bits (relative error ≤ 2⁻⁹ ≈ 2e-3), and an output that
// reads bf16 intermediates (q, k, v; an accumulated gradient) carries a few such roundings.
constexpr double kBf16Tol = 1e-2;

template <typename T>
constexpr double output_tol() {
  return std::is_same_v<T, float> ? kFp32Tol : kBf16Tol;
}
template <typename T>
constexpr double accumulate_tol() {
  return std::is_same_v<T, float> ? kFp32Tol : kBf16AccumulateTol;
}
template <typename T>
constexpr cudaDataType_t cuda_type() {
  return cu::DType<T>::kCuda;
}

// Shapes chosen to hit the edges: N rows not a multiple of the 8 rows per block, C not a multiple of the 32
// lanes of a warp, V above the classifier's 512 threads and not a multiple of them.
constexpr int kB = 2, kT = 19, kC = 40, kN = kB * kT;

}  // namespace isoflop::test::gpu
