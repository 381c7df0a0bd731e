// The CUDA backend: Gpt<float> (parity mode) or Gpt<bf16> (training) behind the Backend interface.
#include "train/cuda/cuda_backend.hpp"

#include "train/cuda/gpt.cuh"

namespace isoflop::train::cuda {
namespace {

template <typename T>
class CudaBackend final : public Backend {
 public:
  CudaBackend(const ModelConfig& config, int batch, Precision precision)
      : model_(config, batch), precision_(precision), device_(device_name()) {}

  BackendKind kind() const override { return BackendKind::kCuda; }
  Precision precision() const override { return precision_; }
  std::string device() const override { return device_; }

  void set_parameters(const float* p) override { model_.set_parameters(p); }
  void get_parameters(float* p) const override { model_.get_parameters(p); }
  void set_optimizer_state(const float* m, const float* v) override { model_.set_optimizer_state(m, v); }
  void get_optimizer_state(float* m, float* v) const override { model_.get_optimizer_state(m, v); }

  double forward_backward(const int32_t* inputs, const int32_t* targets) override {
    return model_.forward_backward(inputs, targets);
  }
  double evaluate(const int32_t* inputs, const int32_t* targets) override { return model_.evaluate(inputs, targets); }
  double grad_norm() override { return model_.grad_norm(); }
  void get_gradients(float* g) const override { model_.get_gradients(g); }
  void update(const AdamWStep& step) override { model_.update(step); }
  size_t memory_bytes() const override { return model_.memory_bytes(); }

 private:
  Gpt<T> model_;
  Precision precision_;
  std::string device_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const ModelConfig& config, int batch, Precision precision) {
  if (precision == Precision::kBf16) return std::make_unique<CudaBackend<bf16>>(config, batch, precision);
  return std::make_unique<CudaBackend<float>>(config, batch, precision);
}

}  // namespace isoflop::train::cuda
