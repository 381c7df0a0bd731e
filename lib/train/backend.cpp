// Choosing a backend: auto picks CUDA when a device is present; an explicit cuda request without one is an
// error, never a silent fallback (issue §2). The CUDA backend is a module (libisoflop_cuda.so) loaded with
// dlopen the first time a job asks about CUDA: the binary links no CUDA library, so no other command pays for
// loading the CUDA runtime and cuBLASLt.
#include "train/backend.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"
#include "train/cuda/module_api.hpp"

#ifndef ISOFLOP_CUDA_MODULE_RELDIR
#define ISOFLOP_CUDA_MODULE_RELDIR "../lib/isoflop"
#endif

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModuleFile = "libisoflop_cuda.so";
constexpr const char* kModuleEnv = "ISOFLOP_CUDA_MODULE";  // a module path that overrides the search (tests)

// The loaded module, or why there is none: "CUDA backend not built (…)", "libcudart could not be loaded: …".
struct Module {
  const IsoflopCudaModule* api = nullptr;
  std::string error;
};

// The module next to the binary (build tree), then in the install's library folder relative to the binary.
std::string find_module(std::string& searched) {
  if (const char* env = std::getenv(kModuleEnv); env && *env) {
    searched = std::string(env) + " (" + kModuleEnv + ")";
    std::error_code ec;
    return fs::is_regular_file(env, ec) ? std::string(env) : std::string();
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    searched = "(the binary's folder is unknown: /proc/self/exe unreadable)";
    return "";
  }
  const fs::path candidates[] = {exe.parent_path() / kModuleFile,
                                 (exe.parent_path() / ISOFLOP_CUDA_MODULE_RELDIR / kModuleFile).lexically_normal()};
  for (const fs::path& candidate : candidates) {
    if (!searched.empty()) searched += " or ";
    searched += candidate.string();
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return "";
}

Module load_module() {
  Module module;
  std::string searched;
  const std::string path = find_module(searched);
  if (path.empty()) {
    module.error = "CUDA backend not built (no " + searched + ")";
    return module;
  }
  // Never closed: a backend made by the module lives until the end of the run.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    const std::string reason = why ? why : "unknown error";
    module.error = (reason.find("libcudart") != std::string::npos ? "libcudart could not be loaded: "
                                                                     : "CUDA backend could not be loaded: ") +
                   reason;
    return module;
  }
  const auto entry = reinterpret_cast<IsoflopCudaEntry>(dlsym(handle, ISOFLOP_CUDA_ENTRY));
  const IsoflopCudaModule* api = entry ? entry() : nullptr;
  if (!api) {
    module.error = "CUDA backend could not be loaded: " + path + " has no entry point " + ISOFLOP_CUDA_ENTRY;
  } else if (api->abi != kIsoflopCudaAbi || api->model_config_size != sizeof(ModelConfig) ||
             api->adamw_step_size != sizeof(AdamWStep)) {
    module.error = "CUDA backend could not be loaded: " + path + " comes from another build of isoflop";
  } else {
    module.api = api;
  }
  return module;
}

const Module& cuda_module() {
  static const Module module = load_module();
  return module;
}

struct Devices {
  int count = 0;
  std::string why;  // the driver's reason when there is none
};

const Devices& devices() {
  static const Devices found = [] {
    Devices d;
    const Module& m = cuda_module();
    if (!m.api) return d;
    char why[256] = "";
    d.count = m.api->device_count(why, sizeof why);
    d.why = why;
    return d;
  }();
  return found;
}

// Why a cuda request cannot run ("" when it can): the module, libcudart or the device, in that order.
std::string cuda_unavailable() {
  const Module& m = cuda_module();
  if (!m.api) return m.error;
  const Devices& d = devices();
  if (d.count > 0) return "";
  return d.why.empty() ? "no CUDA device (the driver reports none)" : "no CUDA device (" + d.why + ")";
}

}  // namespace

bool cuda_built() { return cuda_module().api != nullptr; }

int cuda_device_count() { return devices().count; }

std::string cuda_device_name() {
  if (cuda_device_count() == 0) return "";
  char name[256] = "";
  cuda_module().api->device_name(name, sizeof name);
  return name;
}

namespace {

// A backend the module made, seen through its C table: each call's status becomes the exception the backend
// threw inside the module (InputError or Error, with its message).
class ModuleBackend final : public Backend {
 public:
  ModuleBackend(const IsoflopCudaModule& api, const ModelConfig& config, int batch, Precision precision)
      : api_(api), precision_(precision) {
    check(api_.create(&config, batch, precision, &handle_, error_, sizeof error_));
  }
  ~ModuleBackend() override { api_.destroy(handle_); }
  ModuleBackend(const ModuleBackend&) = delete;
  ModuleBackend& operator=(const ModuleBackend&) = delete;

  BackendKind kind() const override { return BackendKind::kCuda; }
  Precision precision() const override { return precision_; }
  std::string device() const override {
    char name[256] = "";
    check(api_.device(handle_, name, sizeof name, error_, sizeof error_));
    return name;
  }
  void set_parameters(const float* params) override {
    check(api_.set_parameters(handle_, params, error_, sizeof error_));
  }
  void get_parameters(float* params) const override {
    check(api_.get_parameters(handle_, params, error_, sizeof error_));
  }
  void set_optimizer_state(const float* m, const float* v) override {
    check(api_.set_optimizer_state(handle_, m, v, error_, sizeof error_));
  }
  void get_optimizer_state(float* m, float* v) const override {
    check(api_.get_optimizer_state(handle_, m, v, error_, sizeof error_));
  }
  double forward_backward(const int32_t* inputs, const int32_t* targets) override {
    double loss = 0;
    check(api_.forward_backward(handle_, inputs, targets, &loss, error_, sizeof error_));
    return loss;
  }
  double evaluate(const int32_t* inputs, const int32_t* targets) override {
    double loss = 0;
    check(api_.evaluate(handle_, inputs, targets, &loss, error_, sizeof error_));
    return loss;
  }
  double grad_norm() override {
    double norm = 0;
    check(api_.grad_norm(handle_, &norm, error_, sizeof error_));
    return norm;
  }
  void get_gradients(float* grads) const override { check(api_.get_gradients(handle_, grads, error_, sizeof error_)); }
  void update(const AdamWStep& step) override { check(api_.update(handle_, &step, error_, sizeof error_)); }
  size_t memory_bytes() const override {
    size_t bytes = 0;
    check(api_.memory_bytes(handle_, &bytes, error_, sizeof error_));
    return bytes;
  }

 private:
  void check(int status) const {
    if (status == kIsoflopOk) return;
    if (status == kIsoflopInputError) throw InputError(error_);
    throw Error(error_);
  }

  const IsoflopCudaModule& api_;
  Precision precision_;
  IsoflopBackend* handle_ = nullptr;
  mutable char error_[1024] = "";
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const ModelConfig& config, int batch, Precision precision) {
  if (const std::string why = cuda_unavailable(); !why.empty())
    throw InputError("backend: cuda requested but " + why);
  return std::make_unique<ModuleBackend>(*cuda_module().api, config, batch, precision);
}

BackendChoice choose_backend(BackendKind requested, const Precision* requested_precision) {
  BackendChoice choice;
  switch (requested) {
    case BackendKind::kCpu:
      choice.kind = BackendKind::kCpu;
      break;
    case BackendKind::kCuda:
      if (const std::string why = cuda_unavailable(); !why.empty())
        throw InputError("backend: cuda requested but " + why);
      choice.kind = BackendKind::kCuda;
      break;
    case BackendKind::kAuto:
      if (cuda_device_count() > 0) {
        choice.kind = BackendKind::kCuda;
        choice.note = "backend auto: using CUDA on " + cuda_device_name();
      } else {
        choice.kind = BackendKind::kCpu;
        choice.note = "backend auto: using the CPU (" + cuda_unavailable() + ")";
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
