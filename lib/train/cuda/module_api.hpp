// The CUDA module's entry point (libisoflop_cuda.so): the one C symbol train::backend looks up after dlopen.
// It returns a table of functions; the backend it makes is a train::Backend, so the module and the binary
// must come from the same build (kIsoflopCudaAbi and the sizes below are checked on loading).
#pragma once

#include <cstddef>

#include "train/backend.hpp"

#define ISOFLOP_CUDA_ENTRY "isoflop_cuda_module"

inline constexpr int kIsoflopCudaAbi = 1;

extern "C" {

struct IsoflopCudaModule {
  int abi;                   // kIsoflopCudaAbi of the module's build
  size_t model_config_size;  // sizeof(ModelConfig) and sizeof(AdamWStep) there: a mismatch refuses the module
  size_t adamw_step_size;
  // Devices the driver reports; when none, `why` receives the driver's reason ("" when it reports zero).
  int (*device_count)(char* why, size_t why_size);
  // Name of device 0 into `name` ("" when there is none).
  void (*device_name)(char* name, size_t name_size);
  // A backend on device 0, owned by the caller (delete it through Backend's virtual destructor). Throws
  // isoflop::InputError or isoflop::Error like the CPU backend's constructor.
  isoflop::train::Backend* (*make_backend)(const isoflop::train::ModelConfig* config, int batch,
                                           isoflop::train::Precision precision);
};

typedef const IsoflopCudaModule* (*IsoflopCudaEntry)();

}  // extern "C"
