// Compute-optimal allocation: how many parameters and tokens for a budget under a law, under constraints
// (unique-token cap, inference demand), the inverse queries, and the band across every applicable law.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/laws.hpp"

namespace isoflop::scaling {

// Constraints on an allocation; all optional.
struct AllocationConstraints {
  // U, distinct tokens available; training past U repeats data (Muennighoff et al. 2023). Tokens.
  std::optional<double> unique_tokens;
  // T, tokens the model will serve over its life; the allocation minimises 6·N·D + 2·N·T at the loss the
  // compute-optimal model reaches (Sardana et al. 2024). Tokens; 0 is accepted (same as no demand).
  std::optional<double> inference_tokens;

  // Throws InputError naming the field when a value is not finite, or U ≤ 0, or T < 0.
  void validate() const;
};

// One answer. Units: FLOPs, parameters and tokens in the law's own convention (LawSpec::convention).
struct Allocation {
  std::string law;                 // the law's catalog name ("epoch-2024", "custom", …)
  std::string method;              // "closed-form", "table-interpolation", "power-law", "kaplan-frontier",
                                   // "numeric" (Boost.Math minimisation / root finding)
  double flops = 0;                // training compute, 6·N·D for every law except allocation tables
  double params = 0;               // N
  double tokens = 0;               // D, training tokens (repeats included)
  double tokens_per_param = 0;     // D/N
  std::optional<double> loss;      // predicted loss; empty for allocation-only laws
  std::optional<double> unique_tokens;  // U, when constrained
  std::optional<double> epochs;         // D/U, when constrained
  // Inference-aware answers (constraints.inference_tokens given):
  std::optional<double> inference_tokens;  // T
  std::optional<double> inference_flops;   // 2·N·T
  std::optional<double> total_flops;       // flops + inference_flops
  // ... and the compute-optimal model at the same loss, for comparison (Sardana et al. 2024 Fig. 1):
  std::optional<double> compute_optimal_params;       // N
  std::optional<double> compute_optimal_tokens;       // D
  std::optional<double> compute_optimal_total_flops;  // 6·N·D + 2·N·T

  bool operator==(const Allocation&) const = default;
};

// The closed form of a parametric law (Hoffmann et al. 2022, eq. 4): N_opt = G·(C/6)^a, D_opt = (C/6)^b / G,
// a = β/(α+β), b = α/(α+β), G = (αA/(βB))^(1/(α+β)).
struct ClosedForm {
  double G = 0;
  double a = 0;
  double b = 0;
};
ClosedForm closed_form(const catalog::ParametricLaw& law);
// Throws InputError unless the law is parametric or data-constrained.
ClosedForm closed_form(const catalog::LawSpec& law);

// The compute-optimal allocation of `flops` (> 0) under `law`:
//  - parametric / data-constrained: closed form; numeric with unique tokens or inference demand;
//  - kaplan: Table 6 frontier N = k·C_min^p with C in PF-days, D = C/(6N);
//  - allocation-table: log-log interpolation between rows, extrapolation with the law's exponents outside;
//  - power-law: D = k·C^p, N = C/(6D).
// Throws InputError for a constraint the law cannot honour, and InfeasibleError when no allocation exists.
Allocation allocate(const catalog::LawSpec& law, double flops, const AllocationConstraints& constraints = {});

// Inverse: the budget for which `params` is the compute-optimal size, and its tokens.
Allocation allocate_for_params(const catalog::LawSpec& law, double params);
// Inverse: the budget for which `tokens` is the compute-optimal data size, and its parameters.
Allocation allocate_for_tokens(const catalog::LawSpec& law, double tokens);

// The minimum compute whose optimal allocation reaches `target_loss` (with constraints, the minimum under
// them; with inference demand, the minimum total FLOPs at that loss). Throws InputError when the target is
// unreachable (at or below the law's floor, e.g. E), or the law has no loss.
Allocation allocate_for_loss(const catalog::LawSpec& law, double target_loss,
                             const AllocationConstraints& constraints = {});

// A fixed model size or data size under a budget: the other follows from C = 6·N·D.
Allocation allocate_fixed_params(const catalog::LawSpec& law, double flops, double params);
Allocation allocate_fixed_tokens(const catalog::LawSpec& law, double flops, double tokens);
// The fewest tokens a fixed model size needs to reach `target_loss` (InputError when unreachable).
Allocation allocate_fixed_params_for_loss(const catalog::LawSpec& law, double params, double target_loss,
                                          const std::optional<double>& unique_tokens = std::nullopt);

// Sardana et al. 2024: the (N, D) minimising 6·N·D + 2·N·T subject to L(N, D[, U]) = target_loss.
Allocation allocate_inference_aware(const catalog::LawSpec& law, double target_loss, double inference_tokens,
                                    const std::optional<double>& unique_tokens = std::nullopt);

// The same query answered by every applicable law, so a planner sees the spread.
enum class BandQuery { kFlops, kParams, kTokens, kTargetLoss };
struct SkippedLaw {
  std::string law;
  std::string reason;  // why the law does not apply to this query

  bool operator==(const SkippedLaw&) const = default;
};
struct AllocationBand {
  std::vector<Allocation> laws;    // in catalog order
  std::vector<SkippedLaw> skipped;
  double params_min = 0, params_max = 0;  // over `laws`
  double tokens_min = 0, tokens_max = 0;
  double flops_min = 0, flops_max = 0;
  std::string parameters;          // the parameter convention every law in `laws` shares
  std::vector<std::string> notes;  // e.g. losses fitted on different datasets

  bool operator==(const AllocationBand&) const = default;
};
// `value` is the budget (FLOPs), parameters, tokens or target loss, per `query`. The band holds laws that count
// parameters as the first law does (Kaplan's non-embedding N is not the total N of Chinchilla-type laws); the
// others are skipped with that reason, and a note says when the losses come from different datasets. A law that cannot answer
// (no loss for a target-loss query, cannot use unique tokens, an unreachable target) is listed in `skipped`.
// Throws InputError, with every law's reason, when no law applies.
AllocationBand allocation_band(const std::vector<catalog::LawSpec>& laws, BandQuery query, double value,
                               const AllocationConstraints& constraints = {});
// Shorthand for a budget in FLOPs.
AllocationBand allocation_band(const std::vector<catalog::LawSpec>& laws, double flops,
                               const AllocationConstraints& constraints = {});

// When no law answered: "no law can answer this query (law: reason; ...)", an InfeasibleError when `unreachable`
// (every law that took the query found it had no solution: a target below each floor), else an InputError.
[[noreturn]] void throw_unanswered(const std::vector<SkippedLaw>& skipped, bool unreachable);

}  // namespace isoflop::scaling
