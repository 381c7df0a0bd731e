// The whole CUDA backend against the CPU reference through the Backend interface: forward loss, every
// gradient tensor, the gradient norm, AdamW, and a few training steps, in fp32 (tight) and bf16 (loose).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "device.hpp"
#include "train/backend.hpp"
#include "train/layout.hpp"
#include "train/optimizer.hpp"

namespace isoflop::test::gpu {
namespace {

using train::Backend;
using train::ModelConfig;
using train::Precision;

// Two shapes: one where every size is a power of two, and one where nothing is a multiple of a block, a warp
// or 8 elements (hs 12, V 97, T 19), so that layer slices and logit rows lose their 16-byte alignment.
const ModelConfig kAligned{2, 32, 4, 16, 64};
const ModelConfig kOdd{2, 36, 3, 19, 97};
constexpr int kBatch = 3;

// fp32 mode against the CPU: the same fp32 math, summed in other orders (cuBLASLt tiles against OpenBLAS, warp
// trees against loops); the differences stay near 1e-6 of each tensor's scale after two layers. The issue's
// 1e-4 for loss and gradients leaves room, and a wrong term is off by O(1).
constexpr double kFp32LossTol = 1e-5;
constexpr double kFp32GradTol = 1e-4;
// bf16 mode: activations and their gradients are rounded to 8 significant bits (2⁻⁹ relative) at every layer
// boundary, about ten roundings deep in a 2-layer model, and amplified where a gradient is a small difference
// of larger terms (LayerNorm, softmax). 10 % of a tensor's largest entry still fails any wrong formula; the
// loss itself, an fp32 softmax over logits from bf16 GEMMs, stays within the 1e-2.
constexpr double kBf16LossTol = 1e-2;
constexpr double kBf16GradTol = 1e-1;

struct Batch {
  std::vector<int32_t> inputs, targets;
};
// Inputs from the lower quarter of the vocabulary, so that most input tokens repeat (the embedding backward's
// buckets) while every id stays a possible target (the tied LM head's gradient reaches every row).
Batch make_batch(const ModelConfig& c, uint64_t seed) {
  const size_t n = static_cast<size_t>(kBatch) * c.seq;
  return {tokens(n, std::max(2, c.vocab / 4), seed), tokens(n, c.vocab, seed + 1)};
}

std::vector<float> initial_parameters(const ModelConfig& c, uint64_t seed) {
  const auto layout = train::parameter_layout(c);
  std::vector<float> p(layout.total);
  train::init_parameters(c, layout, seed, p.data());
  // Nudge the biases and gains off 0 and 1 so that no gradient is special.
  train::Rng rng(seed + 7);
  for (float& x : p) x += static_cast<float>(0.01 * rng.normal());
  return p;
}

std::vector<float> gradients(const Backend& b, size_t n) {
  std::vector<float> g(n);
  b.get_gradients(g.data());
  return g;
}

void check_every_gradient(const ModelConfig& c, const std::vector<float>& actual, const std::vector<float>& expected,
                          double tol) {
  const auto layout = train::parameter_layout(c);
  for (int i = 0; i < train::kParamCount; ++i) {
    const auto p = static_cast<train::Param>(i);
    check_tensor("d" + std::string(train::param_name(p)), actual.data() + layout.offset(p),
                 expected.data() + layout.offset(p), layout.size(p), tol);
  }
}

struct Pair {
  std::unique_ptr<Backend> cpu, cuda;
};
Pair make_backends(const ModelConfig& c, Precision precision, uint64_t seed) {
  Pair p{train::make_cpu_backend(c, kBatch), train::make_cuda_backend(c, kBatch, precision)};
  const auto params = initial_parameters(c, seed);
  p.cpu->set_parameters(params.data());
  p.cuda->set_parameters(params.data());
  return p;
}

void check_one_step(const ModelConfig& c, Precision precision, double loss_tol, double grad_tol) {
  CAPTURE(train::describe(c));
  Pair p = make_backends(c, precision, 100);
  const Batch batch = make_batch(c, 200);
  const double cpu_loss = p.cpu->forward_backward(batch.inputs.data(), batch.targets.data());
  const double cuda_loss = p.cuda->forward_backward(batch.inputs.data(), batch.targets.data());
  INFO("loss: cuda " << cuda_loss << " cpu " << cpu_loss);
  CHECK(std::fabs(cuda_loss - cpu_loss) <= loss_tol * std::fabs(cpu_loss));
  const size_t n = train::parameter_layout(c).total;
  const auto cpu_grads = gradients(*p.cpu, n);
  const auto cuda_grads = gradients(*p.cuda, n);
  check_every_gradient(c, cuda_grads, cpu_grads, grad_tol);
  // The norm is a double sum of squares on both sides; it inherits the gradients' error.
  const double cpu_norm = p.cpu->grad_norm(), cuda_norm = p.cuda->grad_norm();
  INFO("grad norm: cuda " << cuda_norm << " cpu " << cpu_norm);
  CHECK(std::fabs(cuda_norm - cpu_norm) <= grad_tol * cpu_norm);
  // evaluate() is the same forward pass and leaves the gradients alone.
  const double cuda_eval = p.cuda->evaluate(batch.inputs.data(), batch.targets.data());
  CHECK(std::fabs(cuda_eval - cuda_loss) <= 1e-6 * std::fabs(cuda_loss));
  CHECK(gradients(*p.cuda, n) == cuda_grads);
}

TEST_CASE("fp32 mode: the loss and every gradient match the CPU reference within 1e-4") {
  GPU_TEST_NEEDS_DEVICE();
  for (const ModelConfig& c : {kAligned, kOdd}) check_one_step(c, Precision::kFp32, kFp32LossTol, kFp32GradTol);
}

TEST_CASE("bf16 mode: the loss matches the CPU within 1e-2, the gradients within 10 % of each tensor's scale") {
  GPU_TEST_NEEDS_DEVICE();
  for (const ModelConfig& c : {kAligned, kOdd}) check_one_step(c, Precision::kBf16, kBf16LossTol, kBf16GradTol);
}

TEST_CASE("the CUDA backend is deterministic: the same batch gives the same bits") {
  GPU_TEST_NEEDS_DEVICE();
  for (const Precision precision : {Precision::kFp32, Precision::kBf16}) {
    Pair p = make_backends(kOdd, precision, 300);
    const Batch batch = make_batch(kOdd, 400);
    const size_t n = train::parameter_layout(kOdd).total;
    const double first = p.cuda->forward_backward(batch.inputs.data(), batch.targets.data());
    const auto first_grads = gradients(*p.cuda, n);
    const double second = p.cuda->forward_backward(batch.inputs.data(), batch.targets.data());
    CHECK(first == second);
    CHECK(gradients(*p.cuda, n) == first_grads);
  }
}

TEST_CASE("AdamW on the device is adamw_update_host: decay only where the layout says, bias correction, clipping") {
  GPU_TEST_NEEDS_DEVICE();
  for (const Precision precision : {Precision::kFp32, Precision::kBf16}) {
    const ModelConfig& c = kOdd;
    const auto layout = train::parameter_layout(c);
    const size_t n = layout.total;
    auto cuda = train::make_cuda_backend(c, kBatch, precision);
    auto params = initial_parameters(c, 500);
    auto m = normals(n, 501, 1e-3);
    auto v = normals(n, 502, 1e-3);
    for (float& x : v) x = x * x;  // second moments are non-negative
    cuda->set_parameters(params.data());
    cuda->set_optimizer_state(m.data(), v.data());
    const Batch batch = make_batch(c, 503);
    cuda->forward_backward(batch.inputs.data(), batch.targets.data());
    const auto grads = gradients(*cuda, n);
    train::AdamWStep step;
    step.lr = 3e-3;
    step.weight_decay = 0.1;
    step.t = 4;
    step.grad_scale = train::clip_scale(cuda->grad_norm(), 0.5 * cuda->grad_norm());  // clipping active: 0.5
    CHECK(step.grad_scale == doctest::Approx(0.5));
    cuda->update(step);
    train::adamw_update_host(layout, step, params.data(), grads.data(), m.data(), v.data());
    std::vector<float> cuda_params(n), cuda_m(n), cuda_v(n);
    cuda->get_parameters(cuda_params.data());
    cuda->get_optimizer_state(cuda_m.data(), cuda_v.data());
    // The kernel performs the host's float operations in the host's order with round-to-nearest intrinsics
    // (no fused multiply-adds): equal up to a possible last-bit difference in the host's own square root.
    for (int i = 0; i < train::kParamCount; ++i) {
      const auto p = static_cast<train::Param>(i);
      const size_t at = layout.offset(p), size = layout.size(p);
      check_tensor(std::string(train::param_name(p)), cuda_params.data() + at, params.data() + at, size, 1e-6);
      check_tensor(std::string("m of ") + std::string(train::param_name(p)), cuda_m.data() + at, m.data() + at, size,
                   1e-6);
      check_tensor(std::string("v of ") + std::string(train::param_name(p)), cuda_v.data() + at, v.data() + at, size,
                   1e-6);
    }
    // And the gradient norm is the host's over the same gradients (double sums in another order).
    CHECK(cuda->grad_norm() == doctest::Approx(train::l2_norm_host(grads.data(), n)).epsilon(1e-10));
  }
}

// A few training steps on both backends from the same start, comparing each step's loss. AdamW's first steps
// move every weight by about lr whatever the gradient's size, so the parameters of the two runs do not stay
// elementwise close (a near-zero gradient may take either sign); the losses do.
void check_training(Precision precision, int steps, double loss_tol) {
  const ModelConfig& c = kAligned;
  Pair p = make_backends(c, precision, 600);
  const train::LrSchedule schedule{1e-3, 2, steps, 0.1};
  for (int s = 0; s < steps; ++s) {
    CAPTURE(s);
    const Batch batch = make_batch(c, 700 + 2 * static_cast<uint64_t>(s));
    const double cpu_loss = p.cpu->forward_backward(batch.inputs.data(), batch.targets.data());
    const double cuda_loss = p.cuda->forward_backward(batch.inputs.data(), batch.targets.data());
    INFO("loss: cuda " << cuda_loss << " cpu " << cpu_loss);
    CHECK(std::fabs(cuda_loss - cpu_loss) <= loss_tol * std::fabs(cpu_loss));
    train::AdamWStep step;
    step.lr = schedule.at(s);
    step.weight_decay = 0.1;
    step.t = s + 1;
    // Each backend clips by its own norm, as the trainer does.
    step.grad_scale = train::clip_scale(p.cpu->grad_norm(), 1.0);
    p.cpu->update(step);
    step.grad_scale = train::clip_scale(p.cuda->grad_norm(), 1.0);
    p.cuda->update(step);
  }
}

TEST_CASE("fp32 mode: three AdamW steps keep the loss within 1e-4 of the CPU's") {
  GPU_TEST_NEEDS_DEVICE();
  // Per step 1e-5 (above); after updates of lr ≈ 1e-3 per weight, an early sign difference on a near-zero
  // gradient moves a loss by about lr·|∂L/∂w|, far below 1e-4.
  check_training(Precision::kFp32, 3, 1e-4);
}

TEST_CASE("bf16 mode: ten AdamW steps keep the loss within 1e-2 of the CPU's (fp32 master weights)") {
  GPU_TEST_NEEDS_DEVICE();
  check_training(Precision::kBf16, 10, kBf16LossTol);
}

TEST_CASE("the CUDA backend reports its device and memory, and refuses out-of-vocabulary tokens") {
  GPU_TEST_NEEDS_DEVICE();
  auto cuda = train::make_cuda_backend(kAligned, kBatch, Precision::kBf16);
  CHECK(cuda->kind() == train::BackendKind::kCuda);
  CHECK(cuda->precision() == Precision::kBf16);
  CHECK(cuda->device() == train::cuda_device_name());
  CHECK(cuda->memory_bytes() > 4 * train::parameter_layout(kAligned).total * sizeof(float));
  Batch batch = make_batch(kAligned, 800);
  batch.inputs[5] = kAligned.vocab;
  CHECK_THROWS_AS(cuda->forward_backward(batch.inputs.data(), batch.targets.data()), InputError);
}

}  // namespace
}  // namespace isoflop::test::gpu
