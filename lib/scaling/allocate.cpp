// Compute-optimal allocation for a budget: the closed form of the parametric law (Hoffmann et al. 2022 eq. 4),
// Kaplan's frontier, power-law frontiers, and the numeric optimum under a unique-token cap.
#include "scaling/allocate.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "scaling/allocation_table.hpp"
#include "scaling/common.hpp"
#include "scaling/loss_law.hpp"
#include "scaling/numeric.hpp"

namespace isoflop::scaling {

using catalog::LawSpec;

namespace detail {

void require_finite_positive(double value, const std::string& what) {
  if (!std::isfinite(value) || !(value > 0)) throw InputError(what + " must be a finite positive number, got " + number_text(value));
}

std::string number_text(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

std::string number_text_beside(double value, double other, bool exact) {
  for (int precision = 6;; ++precision) {
    std::ostringstream a, b;
    a.precision(precision);
    b.precision(precision);
    a << value;
    b << other;
    const bool reads_back = !exact || std::strtod(a.str().c_str(), nullptr) == value;
    if ((a.str() != b.str() && reads_back) || precision >= 17) return a.str();
  }
}

Allocation make_allocation(const LawSpec& law, const std::string& method, double flops, double params, double tokens,
                           const std::optional<double>& unique_tokens) {
  Allocation a;
  a.law = law.name;
  a.method = method;
  a.flops = flops;
  a.params = params;
  a.tokens = tokens;
  a.tokens_per_param = tokens / params;
  if (unique_tokens) {
    a.unique_tokens = unique_tokens;
    a.epochs = tokens / *unique_tokens;
  }
  if (has_loss(law)) a.loss = predicted_loss(law, params, tokens, unique_tokens);
  return a;
}

}  // namespace detail

namespace {

using detail::make_allocation;

// The loss of spending `flops` on `params` parameters, the rest on tokens (C = 6ND).
double loss_at(const LawSpec& law, double flops, double params, const std::optional<double>& unique_tokens) {
  return predicted_loss(law, params, flops / (6.0 * params), unique_tokens);
}

// Minimises L(N, C/(6N)[, U]) over log N around the closed-form optimum. With a unique-token cap the optimum
// moves to larger N and fewer tokens (Muennighoff et al. 2023 sec. 5); the bracket spans 10^±4 of the
// unconstrained size, far beyond any optimum the published laws produce.
Allocation numeric_optimum(const LawSpec& law, double flops, const std::optional<double>& unique_tokens) {
  const ClosedForm cf = closed_form(law);
  const double n0 = cf.G * std::pow(flops / 6.0, cf.a);
  const double span = std::log(1e4);
  const double hi = std::min(span, std::log(flops / 6.0 / n0));  // at least one training token
  auto objective = [&](double t) { return loss_at(law, flops, n0 * std::exp(t), unique_tokens); };
  const auto best = detail::find_minimum(objective, -span, hi);
  const double n = n0 * std::exp(best.first);
  return make_allocation(law, "numeric", flops, n, flops / (6.0 * n), unique_tokens);
}

void require_no_unique_tokens(const LawSpec& law, const AllocationConstraints& constraints) {
  if (constraints.unique_tokens && !handles_unique_tokens(law))
    throw FieldError("unique_tokens", "law '" + law.name + "' (" + std::string(catalog::kLawKindNames.name(law.kind())) +
                                          ") has no model of repeated data; use a parametric or data-constrained law "
                                          "such as muennighoff-2023");
}

}  // namespace

void AllocationConstraints::validate() const {
  if (unique_tokens) detail::require_finite_positive(*unique_tokens, "unique tokens");
  if (inference_tokens && (!std::isfinite(*inference_tokens) || *inference_tokens < 0))
    throw InputError("inference tokens must be a finite number ≥ 0, got " + detail::number_text(*inference_tokens));
}

ClosedForm closed_form(const catalog::ParametricLaw& law) {
  ClosedForm cf;
  const double sum = law.alpha + law.beta;
  cf.G = std::pow(law.alpha * law.A / (law.beta * law.B), 1.0 / sum);
  cf.a = law.beta / sum;
  cf.b = law.alpha / sum;
  return cf;
}

ClosedForm closed_form(const LawSpec& law) {
  const catalog::ParametricLaw* p = law.parametric();
  if (!p) throw InputError("law '" + law.name + "' is not parametric; it has no closed-form optimum");
  return closed_form(*p);
}

Allocation allocate(const LawSpec& law, double flops, const AllocationConstraints& constraints) {
  detail::require_finite_positive(flops, "flops");
  constraints.validate();
  require_no_unique_tokens(law, constraints);
  if (constraints.inference_tokens) {
    // Sardana et al. 2024: keep the quality the compute-optimal model reaches with `flops`, then minimise
    // training plus inference FLOPs at that loss.
    if (!has_loss(law))
      throw InputError("law '" + law.name + "' is allocation-only; inference-aware allocation needs a loss law");
    AllocationConstraints training_only = constraints;
    training_only.inference_tokens.reset();
    const Allocation reference = allocate(law, flops, training_only);
    return allocate_inference_aware(law, *reference.loss, *constraints.inference_tokens, constraints.unique_tokens);
  }
  if (const catalog::ParametricLaw* p = law.parametric()) {
    // For the data-constrained law too: at the closed-form point R_N = R_D = 0 and its loss equals the
    // parametric minimum, while the decay terms only ever add loss elsewhere.
    const ClosedForm cf = closed_form(*p);
    const double n = cf.G * std::pow(flops / 6.0, cf.a);
    const double d = std::pow(flops / 6.0, cf.b) / cf.G;
    // Within the first epoch repetition costs nothing, so the unconstrained optimum stands when D ≤ U.
    if (!constraints.unique_tokens || d <= *constraints.unique_tokens)
      return make_allocation(law, "closed-form", flops, n, d, constraints.unique_tokens);
    return numeric_optimum(law, flops, constraints.unique_tokens);
  }
  if (const auto* k = law.as<catalog::KaplanLaw>()) {
    // Kaplan et al. 2020 Table 6: N_opt = 1.3e9 · C_min^0.73 with C_min in PF-days (non-embedding).
    const double n = k->frontier_coefficient * std::pow(flops / k->flops_per_pf_day, k->frontier_exponent);
    return make_allocation(law, "kaplan-frontier", flops, n, flops / (6.0 * n), std::nullopt);
  }
  if (const auto* p = law.as<catalog::PowerLawAllocation>()) {
    const double d = p->tokens_coefficient * std::pow(flops, p->tokens_exponent);
    return make_allocation(law, "power-law", flops, flops / (6.0 * d), d, std::nullopt);
  }
  const TablePoint p = interpolate_table(law, flops);  // the remaining kind: an allocation table
  return make_allocation(law, "table-interpolation", flops, p.params, p.tokens, std::nullopt);
}

Allocation allocate_fixed_params(const LawSpec& law, double flops, double params) {
  detail::require_finite_positive(flops, "flops");
  detail::require_finite_positive(params, "params");
  return make_allocation(law, "fixed-params", flops, params, flops / (6.0 * params), std::nullopt);
}

Allocation allocate_fixed_tokens(const LawSpec& law, double flops, double tokens) {
  detail::require_finite_positive(flops, "flops");
  detail::require_finite_positive(tokens, "tokens");
  return make_allocation(law, "fixed-tokens", flops, flops / (6.0 * tokens), tokens, std::nullopt);
}

}  // namespace isoflop::scaling
