// The whole CPU GPT: gradients against finite differences (double), float against double, parameter layout
// against the project's parameter count, and overfitting one batch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gradcheck.hpp"
#include "model/params.hpp"
#include "train/backend.hpp"
#include "train/cpu/gpt.hpp"
#include "train/optimizer.hpp"
#include "train/rng.hpp"
#include "train/trainer.hpp"

namespace isoflop::train {
namespace {

// The acceptance shape: 2 layers, d 32 (4 heads); short context and a small vocabulary keep it fast.
const ModelConfig kConfig{2, 32, 4, 8, 16};

std::vector<int32_t> random_tokens(size_t n, int vocab, uint64_t seed) {
  Rng rng(seed);
  std::vector<int32_t> t(n);
  for (auto& x : t) x = static_cast<int32_t>(rng.below(vocab));
  return t;
}

TEST_CASE("the parameter layout has exactly the project's parameter count (tied head, learned positions)") {
  for (const ModelConfig& c : {kConfig, ModelConfig{12, 768, 12, 1024, 50257}, ModelConfig{4, 256, 4, 256, 256}}) {
    CHECK(static_cast<double>(parameter_layout(c).total) == model::count_params(architecture_of(c)).total());
  }
  // GPT-2 small with V = 50257, T = 1024: 124,439,808 parameters (Radford et al. 2019, the "124M" model).
  CHECK(parameter_layout(ModelConfig{12, 768, 12, 1024, 50257}).total == 124439808u);
}

TEST_CASE("whole-model gradients of a 2-layer d 32 GPT match finite differences") {
  const int B = 2;
  cpu::Gpt<double> model(kConfig, B);
  std::vector<float> init(model.layout().total);
  init_parameters(kConfig, model.layout(), 11, init.data());
  std::copy(init.begin(), init.end(), model.params().begin());
  // Nudge biases and gains away from 0 and 1 so their gradients are generic.
  Rng rng(12);
  for (auto& p : model.params()) p += 0.02 * rng.normal();
  const auto inputs = random_tokens(B * kConfig.seq, kConfig.vocab, 13);
  const auto targets = random_tokens(B * kConfig.seq, kConfig.vocab, 14);
  model.forward(inputs.data(), targets.data(), B);
  model.backward();
  const std::vector<double> analytic = model.grads();
  auto loss = [&] { return model.forward(inputs.data(), targets.data(), B); };
  // Every tensor, 24 entries each (all of them for small tensors): enough to catch a wrong term anywhere
  // while keeping the check within the test budget. Stated tolerance: 1e-6 relative to the largest
  // numeric entry of the tensor; double precision and h = 1e-5 leave the difference near 1e-9.
  const auto& layout = model.layout();
  for (int i = 0; i < kParamCount; ++i) {
    std::vector<size_t> indices;
    const size_t n = layout.sizes[i];
    for (size_t k = 0; k < std::min<size_t>(n, 24); ++k) indices.push_back(layout.offsets[i] + (k * 7919) % n);
    INFO("tensor " << param_name(static_cast<Param>(i)));
    CHECK(test::gradient_error(model.params(), loss, analytic, indices) < 1e-6);
  }
}

TEST_CASE("the float model agrees with the double model to single-precision accuracy") {
  const int B = 2;
  cpu::Gpt<double> reference(kConfig, B);
  cpu::Gpt<float> model(kConfig, B);
  init_parameters(kConfig, model.layout(), 21, model.params().data());
  std::copy(model.params().begin(), model.params().end(), reference.params().begin());
  const auto inputs = random_tokens(B * kConfig.seq, kConfig.vocab, 22);
  const auto targets = random_tokens(B * kConfig.seq, kConfig.vocab, 23);
  const double loss32 = model.forward(inputs.data(), targets.data(), B);
  const double loss64 = reference.forward(inputs.data(), targets.data(), B);
  CHECK(loss32 == doctest::Approx(loss64).epsilon(1e-6));
  model.backward();
  reference.backward();
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < model.grads().size(); ++i) {
    max_diff = std::max(max_diff, std::fabs(model.grads()[i] - reference.grads()[i]));
    max_ref = std::max(max_ref, std::fabs(reference.grads()[i]));
  }
  CHECK(max_diff / max_ref < 1e-4);  // fp32 rounding through ~10 layers of sums stays well under 1e-4
}

TEST_CASE("an untrained GPT-2-initialised model predicts close to uniform") {
  cpu::Gpt<float> model(kConfig, 1);
  init_parameters(kConfig, model.layout(), 31, model.params().data());
  const auto inputs = random_tokens(kConfig.seq, kConfig.vocab, 32);
  const auto targets = random_tokens(kConfig.seq, kConfig.vocab, 33);
  // Logits have spread ≈ √C·0.02 ≈ 0.11, so over 8 positions the loss sits within a few tenths of ln V.
  CHECK(std::fabs(model.forward(inputs.data(), targets.data(), 1) - std::log(16.0)) < 0.2);
}

TEST_CASE("the CPU backend overfits one small batch to near-zero loss") {
  const ModelConfig config{2, 32, 4, 16, 32};
  const int B = 4;
  auto backend = make_cpu_backend(config, B);
  const auto layout = parameter_layout(config);
  std::vector<float> params(layout.total);
  init_parameters(config, layout, 41, params.data());
  backend->set_parameters(params.data());
  const auto inputs = random_tokens(B * config.seq, config.vocab, 42);
  const auto targets = random_tokens(B * config.seq, config.vocab, 43);
  double first = 0, last = 0;
  for (int t = 1; t <= 150; ++t) {
    const double loss = backend->forward_backward(inputs.data(), targets.data());
    if (t == 1) first = loss;
    last = loss;
    AdamWStep step;
    step.lr = 1e-2;
    step.t = t;
    step.grad_scale = clip_scale(backend->grad_norm(), 1.0);
    backend->update(step);
  }
  CHECK(first > 3.0);  // ≈ ln 32 = 3.47 at initialisation
  CHECK(last < 0.05);  // random targets can only be memorised: near-zero loss means the whole path learns
}

}  // namespace
}  // namespace isoflop::train
