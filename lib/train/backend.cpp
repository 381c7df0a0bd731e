// Choosing a backend: auto picks CUDA when a device is present; an explicit cuda request without one is an
// error, never a silent fallback (issue §2).
#include "train/backend.hpp"

#include "core/error.hpp"

#ifdef ISOFLOP_TRAIN_CUDA
#include "train/cuda/cuda_backend.hpp"
#endif

namespace isoflop::train {

bool cuda_built() {
#ifdef ISOFLOP_TRAIN_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
#ifdef ISOFLOP_TRAIN_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

std::string cuda_device_name() {
#ifdef ISOFLOP_TRAIN_CUDA
  return cuda::device_count() > 0 ? cuda::device_name() : "";
#else
  return "";
#endif
}

std::unique_ptr<Backend> make_cuda_backend(const ModelConfig& config, int batch, Precision precision) {
#ifdef ISOFLOP_TRAIN_CUDA
  if (cuda::device_count() == 0) throw InputError("backend: cuda requested but no CUDA device is present");
  return cuda::make_backend(config, batch, precision);
#else
  (void)config;
  (void)batch;
  (void)precision;
  throw InputError("backend: cuda requested but this isoflop was built without CUDA (configure with nvcc available)");
#endif
}

BackendChoice choose_backend(BackendKind requested, const Precision* requested_precision) {
  BackendChoice choice;
  switch (requested) {
    case BackendKind::kCpu:
      choice.kind = BackendKind::kCpu;
      break;
    case BackendKind::kCuda:
      if (!cuda_built())
        throw InputError("backend: cuda requested but this isoflop was built without CUDA (configure with nvcc "
                         "available)");
      if (cuda_device_count() == 0) throw InputError("backend: cuda requested but no CUDA device is present");
      choice.kind = BackendKind::kCuda;
      break;
    case BackendKind::kAuto:
      if (cuda_device_count() > 0) {
        choice.kind = BackendKind::kCuda;
        choice.note = "backend auto: using CUDA on " + cuda_device_name();
      } else {
        choice.kind = BackendKind::kCpu;
        choice.note = std::string("backend auto: using the CPU (") +
                      (cuda_built() ? "no CUDA device present" : "built without CUDA") + ")";
      }
      break;
  }
  if (choice.kind == BackendKind::kCpu) {
    if (requested_precision && *requested_precision == Precision::kBf16) {
      if (requested == BackendKind::kCpu)
        throw InputError("precision: bf16 needs the cuda backend; the CPU reference runs fp32");
      choice.note += "; precision bf16 applies on CUDA only, the CPU runs fp32";
    }
    choice.precision = Precision::kFp32;
  } else {
    choice.precision = requested_precision ? *requested_precision : Precision::kBf16;
  }
  return choice;
}

std::unique_ptr<Backend> make_backend(const BackendChoice& choice, const ModelConfig& config, int batch) {
  if (choice.kind == BackendKind::kCuda) return make_cuda_backend(config, batch, choice.precision);
  return make_cpu_backend(config, batch, choice.cpu_threads);
}

}  // namespace isoflop::train
