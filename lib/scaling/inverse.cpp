// Inverse queries: the budget at which a parameter count (or token count) is compute-optimal, and the least
// compute that reaches a target loss.
#include <cmath>

#include "core/error.hpp"
#include "scaling/allocate.hpp"
#include "scaling/allocation_table.hpp"
#include "scaling/common.hpp"
#include "scaling/loss_law.hpp"
#include "scaling/numeric.hpp"

namespace isoflop::scaling {

using catalog::LawKind;
using catalog::LawSpec;

namespace {

using detail::kMaxSearchFlops;
using detail::kMinSearchFlops;
using detail::number_text;

// The budget C at which `size_of(allocate(C))` equals `target`, by TOMS 748 on ln C (the size grows with C
// for every law). `what` names the quantity for messages ("params", "tokens").
template <typename SizeOf>
double budget_for(const LawSpec& law, double target, SizeOf size_of, const std::string& what) {
  auto f = [&](double log_c) { return std::log(size_of(allocate(law, std::exp(log_c)))) - std::log(target); };
  const double lo = std::log(kMinSearchFlops), hi = std::log(kMaxSearchFlops);
  const double f_lo = f(lo), f_hi = f(hi);
  if (f_lo > 0 || f_hi < 0)
    throw InputError(what + " " + number_text(target) + " is outside what law '" + law.name + "' allocates between " +
                     number_text(kMinSearchFlops) + " and " + number_text(kMaxSearchFlops) + " FLOPs");
  return std::exp(detail::find_root(f, lo, hi, f_lo, f_hi));
}

void require_loss_law(const LawSpec& law) {
  if (!has_loss(law))
    throw InputError("law '" + law.name + "' is allocation-only (" + std::string(catalog::kLawKindNames.name(law.kind())) +
                     ") and predicts no loss, so a target loss cannot be planned with it");
}

void require_above_floor(const LawSpec& law, double target_loss) {
  detail::require_finite_positive(target_loss, "target loss");
  const double floor = irreducible_loss(law);
  if (!(target_loss > floor))
    throw InfeasibleError("target loss " + number_text(target_loss) + " is unreachable under law '" + law.name +
                          "': it is at or below the irreducible loss " + number_text(floor));
}

}  // namespace

Allocation allocate_for_params(const LawSpec& law, double params) {
  detail::require_finite_positive(params, "params");
  if (law.parametric()) {
    // Inverting eq. 4: N = G·(C/6)^a ⇒ C = 6·(N/G)^(1/a).
    const ClosedForm cf = closed_form(law);
    const double flops = 6.0 * std::pow(params / cf.G, 1.0 / cf.a);
    return detail::make_allocation(law, "closed-form", flops, params, flops / (6.0 * params), std::nullopt);
  }
  if (law.kind() == LawKind::kAllocationTable) {
    const TablePoint p = table_point_for_params(law, params);
    return detail::make_allocation(law, "table-interpolation", p.flops, params, p.tokens, std::nullopt);
  }
  const double flops = budget_for(law, params, [](const Allocation& a) { return a.params; }, "params");
  Allocation a = allocate(law, flops);
  a.params = params;  // exact, rather than the root finder's last digit
  a.tokens_per_param = a.tokens / a.params;
  return a;
}

Allocation allocate_for_tokens(const LawSpec& law, double tokens) {
  detail::require_finite_positive(tokens, "tokens");
  if (law.parametric()) {
    // D = (C/6)^b / G ⇒ C = 6·(D·G)^(1/b).
    const ClosedForm cf = closed_form(law);
    const double flops = 6.0 * std::pow(tokens * cf.G, 1.0 / cf.b);
    return detail::make_allocation(law, "closed-form", flops, flops / (6.0 * tokens), tokens, std::nullopt);
  }
  if (law.kind() == LawKind::kAllocationTable) {
    const TablePoint p = table_point_for_tokens(law, tokens);
    return detail::make_allocation(law, "table-interpolation", p.flops, p.params, tokens, std::nullopt);
  }
  const double flops = budget_for(law, tokens, [](const Allocation& a) { return a.tokens; }, "tokens");
  Allocation a = allocate(law, flops);
  a.tokens = tokens;
  a.tokens_per_param = a.tokens / a.params;
  return a;
}

Allocation allocate_for_loss(const LawSpec& law, double target_loss, const AllocationConstraints& constraints) {
  constraints.validate();
  require_loss_law(law);
  require_above_floor(law, target_loss);
  if (constraints.inference_tokens) {
    AllocationConstraints training_only = constraints;
    training_only.inference_tokens.reset();
    allocate_for_loss(law, target_loss, training_only);  // rejects an unreachable target with the plain message
    return allocate_inference_aware(law, target_loss, *constraints.inference_tokens, constraints.unique_tokens);
  }
  // The optimal loss falls monotonically with compute; find the budget where it meets the target.
  auto f = [&](double log_c) { return *allocate(law, std::exp(log_c), constraints).loss - target_loss; };
  const double lo = std::log(kMinSearchFlops), hi = std::log(kMaxSearchFlops);
  const double f_lo = f(lo), f_hi = f(hi);
  if (f_hi > 0) {
    const double reached = f_hi + target_loss;
    throw InfeasibleError(
        "target loss " + detail::number_text_beside(target_loss, reached, true) + " is unreachable under law '" +
        law.name + "'" +
        (constraints.unique_tokens ? " with " + number_text(*constraints.unique_tokens) + " unique tokens" : "") +
        ": even " + number_text(kMaxSearchFlops) + " FLOPs reach only " +
        detail::number_text_beside(reached, target_loss) + "; give a target above that");
  }
  if (f_lo < 0)
    throw InputError("target loss " + number_text(target_loss) + " is above the loss law '" + law.name +
                     "' predicts for " + number_text(kMinSearchFlops) + " FLOP; nothing to plan");
  const double flops = std::exp(detail::find_root(f, lo, hi, f_lo, f_hi));
  return allocate(law, flops, constraints);
}

Allocation allocate_fixed_params_for_loss(const LawSpec& law, double params, double target_loss,
                                          const std::optional<double>& unique_tokens) {
  detail::require_finite_positive(params, "params");
  require_loss_law(law);
  require_above_floor(law, target_loss);
  if (unique_tokens) detail::require_finite_positive(*unique_tokens, "unique tokens");
  // The loss falls monotonically with tokens at fixed N; solve for ln D.
  auto f = [&](double log_d) { return predicted_loss(law, params, std::exp(log_d), unique_tokens) - target_loss; };
  const double lo = 0.0, hi = std::log(kMaxSearchFlops);
  const double f_lo = f(lo), f_hi = f(hi);
  if (f_hi > 0)
    throw InfeasibleError("target loss " + number_text(target_loss) + " is unreachable with " + number_text(params) +
                          " parameters under law '" + law.name + "': unlimited tokens reach only " +
                          number_text(f_hi + target_loss) + "; use a larger model");
  if (f_lo < 0)
    throw InputError("target loss " + number_text(target_loss) + " is above the loss of " + number_text(params) +
                     " parameters after one token; nothing to plan");
  const double tokens = std::exp(detail::find_root(f, lo, hi, f_lo, f_hi));
  return detail::make_allocation(law, "fixed-params", 6.0 * params * tokens, params, tokens, unique_tokens);
}

}  // namespace isoflop::scaling
