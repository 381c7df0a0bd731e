// Loss laws: parametric (Hoffmann et al. 2022 eq. 2), Kaplan et al. 2020 eq. 1.5, and Muennighoff et al.
// 2023's data-constrained law.
#include "scaling/loss_law.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "scaling/allocate.hpp"
#include "units/quantity.hpp"

namespace isoflop::scaling {
namespace {

using catalog::LawSpec;

void require_positive(double value, const std::string& what) {
  if (!std::isfinite(value) || !(value > 0)) {
    std::ostringstream out;
    out << what << " must be a finite positive number, got " << value;
    throw InputError(out.str());
  }
}

std::string law_label(const LawSpec& law) { return "law '" + law.name + "'"; }

// From the closed form N = G·(C/6)^a, D = (C/6)^b/G: C/6 = (D·G)^(1/b), so N = G·(D·G)^(a/b) = G·(D·G)^(β/α).
double params_for_tokens(const catalog::ParametricLaw& law, double tokens) {
  const ClosedForm cf = closed_form(law);
  return cf.G * std::pow(tokens * cf.G, cf.a / cf.b);
}

// Muennighoff et al. 2023 (datablations README): U_N = min(N, D_to_N(U)), R_N = max(N/U_N − 1, 0),
// N' = U_N + U_N·R_N*·(1 − exp(−R_N/R_N*)); D' as in effective_tokens.
double data_constrained_loss(const catalog::DataConstrainedLaw& law, double n, double d, double u) {
  const double u_n = std::min(n, params_for_tokens(law.base, u));
  const double r_n = std::max(n / u_n - 1.0, 0.0);
  const double n_eff = u_n + u_n * law.r_n_star * (1.0 - std::exp(-r_n / law.r_n_star));
  return law.base.loss(n_eff, effective_tokens(d, u, law.base.r_d_star));
}

// Kaplan et al. 2020 eq. 1.5: L(N, D) = [(N_c/N)^(α_N/α_D) + D_c/D]^α_D.
double kaplan_loss(const catalog::KaplanLaw& law, double n, double d) {
  const double ratio = law.alpha_n / law.alpha_d;
  return std::pow(std::pow(law.nc / n, ratio) + law.dc / d, law.alpha_d);
}

}  // namespace

void LossQuery::validate() const {
  require_positive(params, "params");
  require_positive(tokens, "tokens");
  if (unique_tokens) require_positive(*unique_tokens, "unique_tokens");
}

bool has_loss(const LawSpec& law) { return law.parametric() || law.as<catalog::KaplanLaw>(); }

bool handles_unique_tokens(const LawSpec& law) {
  const catalog::ParametricLaw* p = law.parametric();
  return p && p->r_d_star > 0;  // required of data-constrained laws, optional for parametric ones
}

double predicted_loss(const LawSpec& law, const LossQuery& query) {
  query.validate();
  if (!has_loss(law))
    throw InputError(law_label(law) + " is allocation-only (" + std::string(catalog::kLawKindNames.name(law.kind())) +
                     ") and predicts no loss; use a parametric, kaplan or data-constrained law");
  if (query.unique_tokens && !handles_unique_tokens(law))
    throw InputError(law_label(law) + " has no model of repeated data, so unique tokens cannot be used with it; " +
                     "use a data-constrained law such as muennighoff-2023, or a parametric law");
  if (const auto* p = law.as<catalog::ParametricLaw>()) {
    const double d =
        query.unique_tokens ? effective_tokens(query.tokens, *query.unique_tokens, p->r_d_star) : query.tokens;
    return p->loss(query.params, d);
  }
  if (const auto* dc = law.as<catalog::DataConstrainedLaw>())
    // Without a cap every token is unique (U = D): no repetition, and excess parameters still decay.
    return data_constrained_loss(*dc, query.params, query.tokens, query.unique_tokens.value_or(query.tokens));
  if (const auto* k = law.as<catalog::KaplanLaw>()) return kaplan_loss(*k, query.params, query.tokens);
  throw InputError(law_label(law) + " predicts no loss");
}

double predicted_loss(const LawSpec& law, double params, double tokens, std::optional<double> unique_tokens) {
  return predicted_loss(law, LossQuery{params, tokens, unique_tokens});
}

double irreducible_loss(const LawSpec& law) {
  if (const auto* p = law.parametric()) return p->E;
  if (law.as<catalog::KaplanLaw>()) return 0.0;
  throw InputError(law_label(law) + " is allocation-only and predicts no loss");
}

double effective_tokens(double tokens, double unique_tokens, double r_d_star) {
  const double repeats = std::max(tokens / unique_tokens - 1.0, 0.0);
  if (repeats == 0) return tokens;  // within the first epoch every token is new
  return unique_tokens + unique_tokens * r_d_star * (1.0 - std::exp(-repeats / r_d_star));
}

double compute_optimal_params_for_tokens(const LawSpec& law, double tokens) {
  const catalog::ParametricLaw* p = law.parametric();
  if (!p) throw InputError(law_label(law) + " is not parametric; it has no closed-form optimum");
  return params_for_tokens(*p, tokens);
}

LawSpec parametric_law(double E, double A, double B, double alpha, double beta, const std::string& name) {
  LawSpec law;
  law.name = name;
  law.display_name = "custom parametric law";
  law.form = catalog::ParametricLaw{E, A, B, alpha, beta, 0.0, 1.0};
  law.convention = "as the constants were fitted; C = 6ND";
  law.source = "constants given by the user";
  return law;
}

LawSpec law_from_params(const std::string& text, const std::string& what) {
  static const char* const kNames[] = {"E", "A", "B", "alpha", "beta", "gamma"};
  std::vector<double> values;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (values.size() == 6)
      throw FieldError(what, "expected 5 or 6 comma-separated numbers E,A,B,alpha,beta[,gamma], got more in '" +
                                 text + "'");
    try {
      values.push_back(units::parse_number(item, kNames[values.size()], units::Sign::kPositive));
    } catch (const InputError& e) {
      throw FieldError(what, e.what());
    }
  }
  if (values.size() < 5 || (!text.empty() && text.back() == ','))
    throw FieldError(what, "expected 5 or 6 comma-separated numbers E,A,B,alpha,beta[,gamma] (e.g. "
                           "1.69,406.4,410.7,0.34,0.28), got '" + text + "'");
  LawSpec law = parametric_law(values[0], values[1], values[2], values[3], values[4]);
  if (values.size() == 6) std::get<catalog::ParametricLaw>(law.form).gamma = values[5];
  return law;
}

LawSpec with_repetition_decay(const LawSpec& law, const LawSpec& donor) {
  const auto* p = law.as<catalog::ParametricLaw>();
  const catalog::ParametricLaw* d = donor.parametric();
  if (!p || p->r_d_star > 0 || !d) return law;
  LawSpec out = law;
  std::get<catalog::ParametricLaw>(out.form).r_d_star = d->r_d_star;
  std::ostringstream note;
  note << (law.note.empty() ? "" : law.note + "; ") << "repeated tokens decay with R_D* = " << d->r_d_star
       << " from " << donor.name;
  out.note = note.str();
  return out;
}

}  // namespace isoflop::scaling
