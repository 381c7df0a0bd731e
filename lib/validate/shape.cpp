// Shaping a trainer model for a parameter target.
#include "validate/shape.hpp"

#include <cmath>

#include "model/params.hpp"
#include "train/trainer.hpp"

namespace isoflop::validate {
namespace {

constexpr int kWidthStep = 8;        // d_model multiple
constexpr int kNarrowWidthStep = 4;  // below kNarrowWidth (heads of 4 where 8 does not divide)
constexpr int kNarrowWidth = 32;
constexpr int kMaxWidth = 8192;
constexpr int kMaxLayers = 96;
constexpr double kTolerance = 1.25;  // a candidate within ±25 % of the target counts as on target

// Per-head channels: d_model/8 rounded down to a power of two, in [8, 64]; 0 when d_model does not divide. Below
// d 32 a width that 8 does not divide gets heads of 4: the 1-layer models of d 16 and 24 are ×1.9 apart in
// parameters, and without d 20 a size between them got 2 layers of d 16, which trains worse per parameter than
// either (README, validate).
int head_size(int d_model) {
  if (d_model < kNarrowWidth && d_model % 8 != 0) return d_model % 4 == 0 ? 4 : 0;
  int size = 8;
  while (size * 2 <= d_model / 8 && size < 64) size *= 2;
  return d_model % size == 0 ? size : 0;
}

}  // namespace

SizedModel count_model(const train::ModelConfig& config) {
  const model::ParamCount count = model::count_params(train::architecture_of(config));
  return {config, count.total(), count.non_embedding()};
}

SizedModel shape_model(double target_params, double aspect, int seq, int vocab) {
  SizedModel best, nearest;
  double best_score = INFINITY, nearest_miss = INFINITY;
  for (int layers = 1; layers <= kMaxLayers; ++layers) {
    for (int d = kNarrowWidthStep; d <= kMaxWidth; d += d < kNarrowWidth ? kNarrowWidthStep : kWidthStep) {
      const int hs = head_size(d);
      if (hs == 0) continue;
      const SizedModel m = count_model({layers, d, d / hs, seq, vocab});
      const double miss = std::abs(std::log(m.params / target_params));
      if (miss < nearest_miss) nearest_miss = miss, nearest = m;
      if (m.params > target_params * kTolerance) break;  // wider only grows
      if (miss > std::log(kTolerance)) continue;
      const double score = std::abs(std::log(static_cast<double>(d) / layers / aspect));
      if (score < best_score) best_score = score, best = m;
    }
  }
  return best_score < INFINITY ? best : nearest;
}

}  // namespace isoflop::validate
