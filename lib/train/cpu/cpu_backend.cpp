// The CPU reference backend: the float Gpt plus AdamW moments, behind the Backend interface.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "train/backend.hpp"
#include "train/cpu/gpt.hpp"
#include "train/optimizer.hpp"

namespace isoflop::train {
namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend(const ModelConfig& config, int batch)
      : model_(config, batch), batch_(batch), m_(model_.layout().total, 0.0f), v_(model_.layout().total, 0.0f) {}

  BackendKind kind() const override { return BackendKind::kCpu; }
  Precision precision() const override { return Precision::kFp32; }
  // "cpu (2 threads, OpenBLAS SkylakeX)": the kernels OpenBLAS chose decide most of the speed.
  std::string device() const override {
    const int n = omp_get_max_threads();
    return "cpu (" + std::to_string(n) + (n == 1 ? " thread" : " threads") + ", OpenBLAS " + openblas_get_corename() + ")";
  }

  void set_parameters(const float* p) override { std::copy_n(p, model_.params().size(), model_.params().begin()); }
  void get_parameters(float* p) const override { std::copy(model_.params().begin(), model_.params().end(), p); }
  void set_optimizer_state(const float* m, const float* v) override {
    std::copy_n(m, m_.size(), m_.begin());
    std::copy_n(v, v_.size(), v_.begin());
  }
  void get_optimizer_state(float* m, float* v) const override {
    std::copy(m_.begin(), m_.end(), m);
    std::copy(v_.begin(), v_.end(), v);
  }

  double forward_backward(const int32_t* inputs, const int32_t* targets) override {
    const double loss = model_.forward(inputs, targets, batch_);
    model_.backward();
    return loss;
  }
  double evaluate(const int32_t* inputs, const int32_t* targets) override {
    return model_.forward(inputs, targets, batch_);
  }
  double grad_norm() override { return l2_norm_host(model_.grads().data(), model_.grads().size()); }
  void get_gradients(float* g) const override { std::copy(model_.grads().begin(), model_.grads().end(), g); }
  void update(const AdamWStep& step) override {
    adamw_update_host(model_.layout(), step, model_.params().data(), model_.grads().data(), m_.data(), v_.data());
  }
  size_t memory_bytes() const override { return model_.memory_bytes() + sizeof(float) * (m_.size() + v_.size()); }

 private:
  cpu::Gpt<float> model_;
  int batch_;
  std::vector<float> m_, v_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const ModelConfig& config, int batch, int threads) {
  // One pool: the layers split their GEMMs over OpenMP threads and call OpenBLAS single-threaded; OpenBLAS's own
  // threads would spin beside OpenMP's on the same cores.
  // 0 keeps OpenMP's own default: OMP_NUM_THREADS when set, else every core.
  if (threads > 0) omp_set_num_threads(threads);
  openblas_set_num_threads(1);
  return std::make_unique<CpuBackend>(config, batch);
}

}  // namespace isoflop::train
