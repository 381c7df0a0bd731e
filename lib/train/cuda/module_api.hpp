// The CUDA module's entry point (libisoflop_cuda.so): the one C symbol train::backend looks up after dlopen.
// It returns a table of C functions, and nothing of C++ crosses it: a backend is an opaque handle, errors come
// back as a code and a message, never as an exception, and no standard-library object is passed. So the binary
// and the module may each carry their own C++ runtime (the binary links libstdc++ statically for its start
// time; the module uses the CUDA toolkit's). The ABI number and the sizes of the two structs passed by pointer
// are checked on loading: a module from another build is refused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "train/backend.hpp"

#define ISOFLOP_CUDA_ENTRY "isoflop_cuda_module"

inline constexpr int kIsoflopCudaAbi = 2;

extern "C" {

// A backend made by the module; only the module's functions look inside.
typedef struct IsoflopBackend IsoflopBackend;

// What a call that can fail returns (the message, NUL-terminated, in its `error` buffer otherwise).
enum IsoflopModuleStatus { kIsoflopOk = 0, kIsoflopInputError = 1, kIsoflopError = 2 };

struct IsoflopCudaModule {
  int abi;                   // kIsoflopCudaAbi of the module's build
  size_t model_config_size;  // sizeof(ModelConfig) and sizeof(AdamWStep) there: a mismatch refuses the module
  size_t adamw_step_size;
  // Devices the driver reports; when none, `why` receives the driver's reason ("" when it reports zero).
  int (*device_count)(char* why, size_t why_size);
  // Name of device 0 into `name` ("" when there is none).
  void (*device_name)(char* name, size_t name_size);

  // A backend on device 0 into *made, released with destroy(). The others mirror train::Backend's methods.
  int (*create)(const isoflop::train::ModelConfig* config, int batch, isoflop::train::Precision precision,
                IsoflopBackend** made, char* error, size_t error_size);
  void (*destroy)(IsoflopBackend* backend);
  int (*device)(const IsoflopBackend* backend, char* name, size_t name_size, char* error, size_t error_size);
  int (*set_parameters)(IsoflopBackend* backend, const float* params, char* error, size_t error_size);
  int (*get_parameters)(const IsoflopBackend* backend, float* params, char* error, size_t error_size);
  int (*set_optimizer_state)(IsoflopBackend* backend, const float* m, const float* v, char* error, size_t error_size);
  int (*get_optimizer_state)(const IsoflopBackend* backend, float* m, float* v, char* error, size_t error_size);
  int (*forward_backward)(IsoflopBackend* backend, const int32_t* inputs, const int32_t* targets, double* loss,
                          char* error, size_t error_size);
  int (*evaluate)(IsoflopBackend* backend, const int32_t* inputs, const int32_t* targets, double* loss, char* error,
                  size_t error_size);
  int (*grad_norm)(IsoflopBackend* backend, double* norm, char* error, size_t error_size);
  int (*get_gradients)(const IsoflopBackend* backend, float* grads, char* error, size_t error_size);
  int (*update)(IsoflopBackend* backend, const isoflop::train::AdamWStep* step, char* error, size_t error_size);
  int (*memory_bytes)(const IsoflopBackend* backend, size_t* bytes, char* error, size_t error_size);
};

typedef const IsoflopCudaModule* (*IsoflopCudaEntry)();

}  // extern "C"
