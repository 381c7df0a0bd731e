// A module with the CUDA module's C table (lib/train/cuda/module_table.hpp) over the CPU reference backend: the
// tests load it as `train` loads libisoflop_cuda.so and check what crosses the table, where there is no GPU.
#include <stdexcept>

#include "train/cuda/module_table.hpp"

namespace {

using isoflop::train::Backend;
using isoflop::train::ModelConfig;
using isoflop::train::Precision;

int device_count(char* why, size_t why_size) {
  isoflop::train::module::write_message(why, why_size, "");
  return 1;
}

void device_name(char* name, size_t name_size) {
  isoflop::train::module::write_message(name, name_size, "CPU through the module table");
}

// fp32 on one thread; bf16 is refused as bad input and a batch of 13 with another error, so that both kinds
// of error cross the table.
std::unique_ptr<Backend> make(const ModelConfig& config, int batch, Precision precision) {
  if (precision != Precision::kFp32) throw isoflop::InputError("the test module trains in fp32 only");
  if (batch == 13) throw std::runtime_error("test module: batch 13 refused");
  return isoflop::train::make_cpu_backend(config, batch, 1);
}

const IsoflopCudaModule kModule = isoflop::train::module::module_table<&make>(&device_count, &device_name);

}  // namespace

extern "C" __attribute__((visibility("default"))) const IsoflopCudaModule* isoflop_cuda_module() { return &kModule; }
