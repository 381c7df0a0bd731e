// The interface both training backends implement (CPU reference, CUDA), and the choice between them.
// The fp32 master parameters and AdamW moments travel in and out in the flat ParameterLayout order, which is
// how checkpoints stay backend-independent.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "train/config.hpp"

namespace isoflop::train {

// One AdamW step (Loshchilov & Hutter 2019: decoupled weight decay), applied to every parameter with the
// gradient multiplied by `grad_scale` first (global-norm clipping).
struct AdamWStep {
  double lr = 0;            // learning rate of this step
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0;  // applied only to tensors ParameterLayout::decayed() names
  double grad_scale = 1;    // min(1, clip / ‖g‖)
  long long t = 1;          // 1-based step count for bias correction
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendKind kind() const = 0;
  virtual Precision precision() const = 0;
  virtual std::string device() const = 0;  // "cpu (2 threads, OpenBLAS SkylakeX)", "NVIDIA H200"

  virtual void set_parameters(const float* params) = 0;  // layout.total floats
  virtual void get_parameters(float* params) const = 0;
  virtual void set_optimizer_state(const float* m, const float* v) = 0;
  virtual void get_optimizer_state(float* m, float* v) const = 0;

  // Forward and backward over one batch of (batch, seq) inputs and targets; returns the mean loss (nats).
  // The gradients stay in the backend for grad_norm() and update().
  virtual double forward_backward(const int32_t* inputs, const int32_t* targets) = 0;
  // Forward only (validation); returns the mean loss.
  virtual double evaluate(const int32_t* inputs, const int32_t* targets) = 0;
  // Global L2 norm of the current gradients.
  virtual double grad_norm() = 0;
  virtual void get_gradients(float* grads) const = 0;
  virtual void update(const AdamWStep& step) = 0;

  // Bytes the backend allocated (CPU: parameters, gradients, moments, activations; CUDA: device memory).
  virtual size_t memory_bytes() const = 0;
};

// The fp32 CPU reference backend for batches of `batch` sequences, on `threads` OpenMP threads (0: OpenMP's
// default, OMP_NUM_THREADS or every core); OpenBLAS runs single-threaded inside them.
// The thread count is process-wide; results repeat bit for bit for a given count and OpenBLAS kernel set.
std::unique_ptr<Backend> make_cpu_backend(const ModelConfig& config, int batch, int threads = 0);

// The CUDA backend on device 0, from the module libisoflop_cuda.so (loaded on first use). Throws InputError
// naming what is missing: "CUDA backend not built", "libcudart could not be loaded: …", "no CUDA device".
std::unique_ptr<Backend> make_cuda_backend(const ModelConfig& config, int batch, Precision precision);

// Whether the CUDA module was found and loaded (the environment variable ISOFLOP_CUDA_MODULE names it
// instead of the search next to the binary), how many devices the driver reports (0 on any error), and the
// name of device 0 ("" when none). Each loads the module on first use; no other function does.
bool cuda_built();
int cuda_device_count();
std::string cuda_device_name();

// Resolves `auto` and checks the request: kCuda without a device is an InputError (never a silent fallback);
// bf16 on the CPU is an InputError. `note` says what auto picked and why.
struct BackendChoice {
  BackendKind kind = BackendKind::kCpu;
  Precision precision = Precision::kFp32;
  int cpu_threads = 0;  // the CPU backend's threads (0: every core)
  std::string note;
};
BackendChoice choose_backend(BackendKind requested, const Precision* requested_precision);

std::unique_ptr<Backend> make_backend(const BackendChoice& choice, const ModelConfig& config, int batch);

}  // namespace isoflop::train
