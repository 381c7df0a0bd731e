// Turning CUDA runtime and cuBLASLt status codes into exceptions: every call is checked, and a failure
// becomes a CudaError naming the call and the driver's reason (never an abort).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace isoflop::train::cuda {

// A failure inside the CUDA runtime or cuBLASLt (out of memory, launch failure, unsupported GEMM).
class CudaError : public Error {
 public:
  using Error::Error;
};

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw CudaError(std::string("CUDA: ") + what + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                    ")");
}

inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cuBLASLt: ") + what + ": " + cublasLtGetStatusString(status));
}

// After a kernel launch: a bad launch configuration is reported here; faults inside the kernel surface at the
// next synchronising call, which is checked too.
inline void check_launch(const char* kernel) { check_cuda(cudaGetLastError(), kernel); }

// Blocks for a grid-stride loop over n elements: enough to fill the device, never more than needed.
inline unsigned grid_for(long long n, int threads) {
  const long long blocks = (n + threads - 1) / threads;
  constexpr long long kMaxBlocks = 1LL << 18;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

}  // namespace isoflop::train::cuda
