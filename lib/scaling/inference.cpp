// Inference-aware allocation (Sardana, Doubov, Frankle 2024, "Beyond Chinchilla-Optimal"): the model of a
// given quality that minimises training plus lifetime inference FLOPs, 6·N·D + 2·N·T.
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "scaling/allocate.hpp"
#include "scaling/common.hpp"
#include "scaling/loss_law.hpp"
#include "scaling/numeric.hpp"

namespace isoflop::scaling {

using catalog::LawSpec;

namespace {

using detail::kMaxSearchFlops;
using detail::number_text;

// The most tokens the contour search considers; as many as the largest budget could train on one parameter.
constexpr double kMaxTokens = kMaxSearchFlops;

// D on the contour L(N, D[, U]) = target at fixed N, or +inf when N alone cannot reach the target.
double contour_tokens(const LawSpec& law, double params, double target, const std::optional<double>& unique) {
  if (const auto* p = law.as<catalog::ParametricLaw>(); p && !unique) {
    // Closed form of eq. 2 solved for D: B/D^β = (target − E)^(1/γ) − A/N^α.
    if (!(target > p->E)) return std::numeric_limits<double>::infinity();
    const double reducible = p->gamma == 1 ? target - p->E : std::pow(target - p->E, 1 / p->gamma);
    const double rest = reducible - p->A / std::pow(params, p->alpha);
    if (!(rest > 0)) return std::numeric_limits<double>::infinity();
    return std::pow(p->B / rest, 1.0 / p->beta);
  }
  auto f = [&](double log_d) { return predicted_loss(law, params, std::exp(log_d), unique) - target; };
  const double lo = 0.0, hi = std::log(kMaxTokens);
  const double f_lo = f(lo), f_hi = f(hi);
  if (f_hi >= 0) return std::numeric_limits<double>::infinity();
  if (f_lo <= 0) return 1.0;
  return std::exp(detail::find_root(f, lo, hi, f_lo, f_hi));
}

// The smallest N that reaches the target with (practically) unlimited tokens: the contour's asymptote.
double smallest_params(const LawSpec& law, double target, const std::optional<double>& unique) {
  auto f = [&](double log_n) { return predicted_loss(law, std::exp(log_n), kMaxTokens, unique) - target; };
  const double lo = 0.0, hi = std::log(kMaxSearchFlops);
  const double f_lo = f(lo), f_hi = f(hi);
  if (f_hi >= 0)
    throw InfeasibleError("target loss " + number_text(target) + " is unreachable under law '" + law.name + "'" +
                          (unique ? " with " + number_text(*unique) + " unique tokens" : ""));
  if (f_lo <= 0) return 1.0;
  return std::exp(detail::find_root(f, lo, hi, f_lo, f_hi));
}

}  // namespace

Allocation allocate_inference_aware(const LawSpec& law, double target_loss, double inference_tokens,
                                    const std::optional<double>& unique_tokens) {
  if (!has_loss(law))
    throw InputError("law '" + law.name + "' is allocation-only; inference-aware allocation needs a loss law");
  detail::require_finite_positive(target_loss, "target loss");
  if (!std::isfinite(inference_tokens) || inference_tokens < 0)
    throw InputError("inference tokens must be a finite number ≥ 0, got " + number_text(inference_tokens));
  if (unique_tokens) detail::require_finite_positive(*unique_tokens, "unique tokens");
  if (unique_tokens && !handles_unique_tokens(law))
    throw InputError("law '" + law.name + "' has no model of repeated data, so unique tokens cannot be used with it");
  if (!(target_loss > irreducible_loss(law)))
    throw InfeasibleError("target loss " + number_text(target_loss) + " is unreachable under law '" + law.name +
                          "': it is at or below the irreducible loss " + number_text(irreducible_loss(law)));

  // Along the contour, total cost → ∞ both as N → N_min (D → ∞) and as N → ∞ (cost ∝ N), with one minimum
  // between. Search t = ln(N/N_min) in (0, ln 1e6]: at zero demand the optimum sits at ((α+β)/β)^(1/α)·N_min
  // (≈10·N_min for the Chinchilla laws), and demand only moves it closer to N_min. Brent's tolerance is
  // relative to |t| + a small absolute floor, so a small-valued variable keeps N accurate to ~1e-8.
  const double n_min = smallest_params(law, target_loss, unique_tokens);
  auto total_flops = [&](double n) {
    const double d = contour_tokens(law, n, target_loss, unique_tokens);
    return 6.0 * n * d + 2.0 * n * inference_tokens;
  };
  auto objective = [&](double t) { return std::log(total_flops(n_min * std::exp(t))); };
  const auto best = detail::find_minimum(objective, 1e-9, std::log(1e6));
  const double n = n_min * std::exp(best.first);
  const double d = contour_tokens(law, n, target_loss, unique_tokens);
  if (!std::isfinite(d)) throw InfeasibleError("no finite inference-aware allocation under law '" + law.name + "'");

  Allocation a = detail::make_allocation(law, "numeric", 6.0 * n * d, n, d, unique_tokens);
  a.inference_tokens = inference_tokens;
  a.inference_flops = 2.0 * n * inference_tokens;
  a.total_flops = a.flops + *a.inference_flops;
  // The compute-optimal model of the same loss, for comparison: its training plus the same inference demand.
  AllocationConstraints plain;
  plain.unique_tokens = unique_tokens;
  const Allocation reference = allocate_for_loss(law, target_loss, plain);
  a.compute_optimal_params = reference.params;
  a.compute_optimal_tokens = reference.tokens;
  a.compute_optimal_total_flops = reference.flops + 2.0 * reference.params * inference_tokens;
  return a;
}

}  // namespace isoflop::scaling
