// Predicted pre-training loss L(N, D[, U]) for a catalog law: Chinchilla-style parametric, Kaplan's, and
// Muennighoff's data-constrained law.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/laws.hpp"

namespace isoflop::scaling {

// The law used when none is named: Besiroglu et al. 2024's refit, whose optimum agrees with Chinchilla's
// Approaches 1-2 (the paper's own Approach-3 constants are biased).
inline constexpr const char* kDefaultLaw = "epoch-2024";

// What a loss is asked for. Units: parameters and tokens as the law counts them (see LawSpec::convention:
// total parameters for Chinchilla-style laws, non-embedding parameters for Kaplan).
struct LossQuery {
  double params = 0;                    // N, parameters (> 0)
  double tokens = 0;                    // D, training tokens seen, repeats included (> 0)
  std::optional<double> unique_tokens;  // U, distinct tokens available; tokens beyond U are repeated epochs

  // Throws InputError naming the field when a value is not finite and positive.
  void validate() const;
};

// True when the law predicts a loss (parametric, kaplan, data-constrained); allocation-only laws
// (allocation-table, power-law) do not.
bool has_loss(const catalog::LawSpec& law);

// True when the law can account for repeated data: data-constrained laws, and parametric laws carrying a
// repetition decay r_d_star (see with_repetition_decay).
bool handles_unique_tokens(const catalog::LawSpec& law);

// The predicted loss in nats per token.
//  - parametric: E + A/N^α + B/D^β (Hoffmann et al. 2022, eq. 2), or E + (A/N^α + B/D^β)^γ with an
//    interaction exponent; with unique_tokens, D is replaced by the effective data D' of Muennighoff et al. 2023
//    using the law's r_d_star.
//  - data-constrained: Muennighoff et al. 2023 (datablations README): effective data D' and effective
//    parameters N' (excess parameters beyond the compute-optimal size for U decay with r_n_star).
//  - kaplan: [(N_c/N)^(α_N/α_D) + D_c/D]^α_D (Kaplan et al. 2020, eq. 1.5), N non-embedding.
// Throws InputError for allocation-only laws, for unique_tokens with a law that cannot use them, and for an
// invalid query.
double predicted_loss(const catalog::LawSpec& law, const LossQuery& query);
double predicted_loss(const catalog::LawSpec& law, double params, double tokens,
                      std::optional<double> unique_tokens = std::nullopt);

// The loss no amount of parameters and data reaches: E for parametric and data-constrained laws, 0 for Kaplan.
double irreducible_loss(const catalog::LawSpec& law);

// Muennighoff et al. 2023: effective data D' = U + U·R_D*·(1 − exp(−R_D/R_D*)), R_D = max(D/U − 1, 0).
double effective_tokens(double tokens, double unique_tokens, double r_d_star);

// Muennighoff et al. 2023: the compute-optimal parameter count for D tokens under a parametric law,
// D_to_N(D) = G·(D·G)^(β/α), the inverse of the closed-form frontier.
double compute_optimal_params_for_tokens(const catalog::LawSpec& law, double tokens);

// A parametric law from its five constants "E,A,B,alpha,beta" (text such as "1.69,406.4,410.7,0.34,0.28"),
// named "custom". Throws FieldError naming the field `what` on a malformed list.
catalog::LawSpec law_from_params(const std::string& text, const std::string& what = "law_params");
catalog::LawSpec parametric_law(double E, double A, double B, double alpha, double beta,
                                const std::string& name = "custom");

// A copy of a parametric law that treats repeated tokens with `donor`'s repetition decay r_d_star (the
// data-constrained law's), so `--unique-tokens` applies to any parametric law. The copy's note says so.
catalog::LawSpec with_repetition_decay(const catalog::LawSpec& law, const catalog::LawSpec& donor);

}  // namespace isoflop::scaling
