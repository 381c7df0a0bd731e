// Device discovery for backend selection: never throws, reports 0 devices on any driver error.
#include <cuda_runtime.h>

#include "train/cuda/cuda_backend.hpp"

namespace isoflop::train::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return 0;
  }
  return n;
}

std::string device_name() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "";
  return prop.name;
}

}  // namespace isoflop::train::cuda
