// Learning-rate schedule, gradient clipping and AdamW on the host.
#include "train/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <array>

namespace isoflop::train {

double LrSchedule::at(long long step) const {
  if (step < warmup_steps) return peak * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  const long long decay_steps = steps - warmup_steps;
  if (decay_steps <= 0) return peak;
  // progress reaches 1 at the last step, so the final update uses min_fraction·peak.
  const double progress = std::min(1.0, static_cast<double>(step + 1 - warmup_steps) / static_cast<double>(decay_steps));
  const double floor = min_fraction * peak;
  return floor + 0.5 * (peak - floor) * (1.0 + std::cos(std::numbers::pi * progress));
}

double clip_scale(double grad_norm, double clip) {
  if (clip <= 0 || !(grad_norm > 0) || !std::isfinite(grad_norm)) return 1.0;
  return grad_norm > clip ? clip / grad_norm : 1.0;
}

void adamw_update_host(const ParameterLayout& layout, const AdamWStep& s, float* params, const float* grads, float* m,
                       float* v) {
  const double c1 = 1.0 - std::pow(s.beta1, static_cast<double>(s.t));
  const double c2 = 1.0 - std::pow(s.beta2, static_cast<double>(s.t));
  for (int i = 0; i < kParamCount; ++i) {
    const size_t begin = layout.offsets[i], n = layout.sizes[i];
    const float wd = ParameterLayout::decayed(static_cast<Param>(i)) ? static_cast<float>(s.weight_decay) : 0.0f;
    const float b1 = static_cast<float>(s.beta1), b2 = static_cast<float>(s.beta2);
    const float lr = static_cast<float>(s.lr), eps = static_cast<float>(s.eps), scale = static_cast<float>(s.grad_scale);
    const float ic1 = static_cast<float>(1.0 / c1), ic2 = static_cast<float>(1.0 / c2);
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < static_cast<long long>(n); ++k) {
      const size_t j = begin + k;
      const float g = grads[j] * scale;
      m[j] = b1 * m[j] + (1.0f - b1) * g;
      v[j] = b2 * v[j] + (1.0f - b2) * g * g;
      const float mhat = m[j] * ic1, vhat = v[j] * ic2;
      params[j] -= lr * (mhat / (std::sqrt(vhat) + eps) + wd * params[j]);
    }
  }
}

double l2_norm_host(const float* values, size_t n) {
  // A fixed number of blocks (not one per thread) keeps the summation order independent of the thread count,
  // and a fixed-size array keeps the training loop free of allocations.
  constexpr int kBlocks = 64;
  std::array<double, kBlocks> partial{};
  const size_t block = (n + kBlocks - 1) / kBlocks;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < kBlocks; ++b) {
    const size_t begin = std::min(n, b * block), end = std::min(n, begin + block);
    double acc = 0;
    for (size_t i = begin; i < end; ++i) acc += static_cast<double>(values[i]) * values[i];
    partial[b] = acc;
  }
  double total = 0;
  for (double p : partial) total += p;
  return std::sqrt(total);
}

}  // namespace isoflop::train
