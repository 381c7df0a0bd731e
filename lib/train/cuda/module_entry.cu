// The entry point of libisoflop_cuda.so: the table train::backend (backend.cpp) reads after dlopen.
#include <cuda_runtime.h>

#include <cstdio>

#include "train/cuda/cuda_backend.hpp"
#include "train/cuda/module_table.hpp"

namespace {

int device_count(char* why, size_t why_size) {
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    if (why && why_size > 0) std::snprintf(why, why_size, "%s", cudaGetErrorString(status));
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return 0;
  }
  if (why && why_size > 0) why[0] = '\0';
  return n;
}

void device_name(char* name, size_t name_size) {
  if (!name || name_size == 0) return;
  name[0] = '\0';
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    return;
  }
  std::snprintf(name, name_size, "%s", isoflop::train::cuda::device_name().c_str());
}

const IsoflopCudaModule kModule =
    isoflop::train::module::module_table<&isoflop::train::cuda::make_backend>(&device_count, &device_name);

}  // namespace

extern "C" __attribute__((visibility("default"))) const IsoflopCudaModule* isoflop_cuda_module() { return &kModule; }
