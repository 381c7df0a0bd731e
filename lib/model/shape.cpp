// Shaping by enumeration: for each depth, the d_model (a multiple of 128 with heads of the reference's
// head size, divisible by TP) whose exact count is nearest the target; ranked by distance from the
// reference family's aspect ratio d_model/layers (Hoffmann et al. 2022 Table A9 keeps it near 100).
#include "model/shape.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "model/params.hpp"

namespace isoflop::model {

void ShapeOptions::validate() const {
  if (reference.layers <= 0 || reference.d_model <= 0 || reference.heads <= 0)
    throw InputError("shape: the reference architecture needs layers, d_model and heads");
  if (tp < 1) throw InputError("--tp: must be at least 1");
  if (d_model_multiple < 1) throw InputError("shape: d_model multiple must be positive");
  if (!(tolerance > 0 && tolerance < 1)) throw InputError("shape: tolerance must be in (0, 1)");
}

ShapeResult shape_architecture(double target, const ShapeOptions& o) {
  o.validate();
  if (!(target > 0) || !std::isfinite(target)) throw InputError("--params: must be a positive number");
  const double aspect = static_cast<double>(o.reference.d_model) / o.reference.layers;
  const long long head = o.reference.effective_head_size();
  const long long step = std::lcm<long long>(o.d_model_multiple, head * o.tp);
  std::vector<ShapeCandidate> found;
  for (int layers = 1; layers <= 512; ++layers) {
    // 12·L·h² dominates: start from the root and try the neighbouring multiples.
    const double h0 = std::sqrt(target / (12.0 * layers));
    const long long base = std::max<long long>(1, static_cast<long long>(h0 / step));
    for (long long k = std::max<long long>(1, base - 1); k <= base + 2; ++k) {
      Architecture a = o.reference;
      a.name = "";
      a.layers = layers;
      a.d_model = k * step;
      a.head_size = head;
      a.heads = static_cast<int>(a.d_model / head);
      if (o.reference.kv_heads > 0) {
        const int group = std::max(1, o.reference.heads / o.reference.effective_kv_heads());
        a.kv_heads = std::max(1, a.heads / group);
        if (a.heads % a.kv_heads != 0 || a.kv_heads % o.tp != 0) a.kv_heads = a.heads;
      }
      if (a.heads % o.tp != 0) continue;
      // The reference's ffn ratio carries over (4h for GELU; SwiGLU's 8h/3 rounded by the family).
      if (o.reference.ffn > 0)
        a.ffn = static_cast<long long>(std::llround(static_cast<double>(o.reference.ffn) / o.reference.d_model * a.d_model / 256.0)) * 256;
      const double params = count_params(a).total();
      const double ratio = params / target;
      if (std::fabs(ratio - 1) > o.tolerance) continue;
      found.push_back({a, params, ratio});
    }
  }
  if (found.empty())
    throw InfeasibleError("no architecture with d_model a multiple of " + std::to_string(step) + " lands within " +
                          std::to_string(o.tolerance * 100) + "% of the target; relax --tp or the tolerance");
  auto score = [&](const ShapeCandidate& c) {
    return std::fabs(std::log(static_cast<double>(c.architecture.d_model) / c.architecture.layers / aspect)) +
           2 * std::fabs(c.ratio - 1);
  };
  std::sort(found.begin(), found.end(), [&](const auto& x, const auto& y) { return score(x) < score(y); });
  ShapeResult r;
  r.best = found.front();
  for (size_t i = 1; i < found.size() && static_cast<int>(r.alternatives.size()) < o.alternatives; ++i)
    r.alternatives.push_back(found[i]);
  return r;
}

}  // namespace isoflop::model
