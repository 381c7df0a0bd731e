// Every device buffer of a backend, allocated once (in its constructor) and freed together; the byte count
// is what Backend::memory_bytes() reports.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "train/cuda/check.cuh"

namespace isoflop::train::cuda {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() {
    for (void* p : blocks_) cudaFree(p);  // errors cannot be reported from a destructor; the context is going away
  }

  // n elements of T, 256-byte aligned (cudaMalloc's guarantee). `what` names the buffer in the error message.
  template <typename T>
  T* allocate(size_t n, const char* what) {
    const size_t bytes = (n > 0 ? n : 1) * sizeof(T);
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, bytes);
    if (status != cudaSuccess) {
      cudaGetLastError();  // out-of-memory is not sticky; clear it so the caller may retry smaller
      throw CudaError("CUDA: allocating " + std::to_string(bytes) + " bytes for " + what + " (" +
                      std::to_string(bytes_) + " already allocated): " + cudaGetErrorString(status));
    }
    try {
      blocks_.push_back(p);
    } catch (...) {
      cudaFree(p);
      throw;
    }
    bytes_ += bytes;
    return static_cast<T*>(p);
  }

  size_t bytes() const { return bytes_; }

 private:
  std::vector<void*> blocks_;
  size_t bytes_ = 0;
};

}  // namespace isoflop::train::cuda
