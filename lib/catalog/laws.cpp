// Parsing laws.yaml entries; which fields are required depends on the law's kind.
#include "catalog/laws.hpp"

#include "catalog/entry_fields.hpp"

#include <cmath>

#include "core/error.hpp"

namespace isoflop::catalog {
namespace {

// A constant given either directly (`A: 406.4`) or as its natural log (`log_A: 6.0073404`), the form in
// which some papers and repositories publish their fits; exactly one of the two.
double positive_or_log(FieldReader& r, const std::string& key) {
  const std::string log_key = "log_" + key;
  const bool direct = r.has(key), logged = r.has(log_key);
  if (direct && logged) r.fail(log_key, "give " + key + " or " + log_key + ", not both");
  if (!logged) return r.positive(key);
  const double value = std::exp(r.number(log_key));
  if (!std::isfinite(value) || !(value > 0)) r.fail(log_key, "exp(" + log_key + ") must be a finite positive number");
  return value;
}

}  // namespace

double ParametricLaw::loss(double params, double tokens) const {
  const double reducible = A / std::pow(params, alpha) + B / std::pow(tokens, beta);
  return E + (gamma == 1 ? reducible : std::pow(reducible, gamma));
}

const ParametricLaw* LawSpec::parametric() const {
  if (const auto* p = std::get_if<ParametricLaw>(&form)) return p;
  if (const auto* d = std::get_if<DataConstrainedLaw>(&form)) return &d->base;
  return nullptr;
}
ParametricLaw* LawSpec::parametric() {
  return const_cast<ParametricLaw*>(static_cast<const LawSpec&>(*this).parametric());
}

LawSpec parse_law(FieldReader& r) {
  LawSpec law;
  read_names(r, law);
  const std::string kind = r.string("kind");
  LawKind law_kind = LawKind::kParametric;
  try {
    law_kind = kLawKindNames.parse(kind, "kind");
  } catch (const InputError&) {
    r.fail("kind", "'" + kind + "' is not one of " + join(kLawKindNames.names(), "|"));
  }
  switch (law_kind) {
    case LawKind::kParametric:
    case LawKind::kDataConstrained: {
      ParametricLaw p;
      p.E = positive_or_log(r, "E");
      p.A = positive_or_log(r, "A");
      p.B = positive_or_log(r, "B");
      p.alpha = r.positive("alpha");
      p.beta = r.positive("beta");
      if (law_kind == LawKind::kDataConstrained) {
        p.r_d_star = r.positive("r_d_star");
        law.form = DataConstrainedLaw{p, r.positive("r_n_star")};
      } else {
        p.r_d_star = r.non_negative_or("r_d_star", 0);
        p.gamma = r.positive_or("gamma", 1);
        law.form = p;
      }
      break;
    }
    case LawKind::kKaplan: {
      KaplanLaw k;
      k.nc = r.positive("n_c");
      k.dc = r.positive("d_c");
      k.alpha_n = r.positive("alpha_n");
      k.alpha_d = r.positive("alpha_d");
      k.frontier_coefficient = r.positive("frontier_coefficient");
      k.frontier_exponent = r.positive("frontier_exponent");
      k.flops_per_pf_day = r.positive("flops_per_pf_day");
      law.form = k;
      break;
    }
    case LawKind::kPowerLaw: {
      PowerLawAllocation p{r.positive("tokens_coefficient"), r.positive("tokens_exponent")};
      if (!(p.tokens_exponent < 1)) r.fail("tokens_exponent", "must be below 1 (tokens grow slower than compute)");
      law.form = p;
      break;
    }
    case LawKind::kAllocationTable: {
      AllocationTableLaw t;
      const YAML::Node rows = r.child("rows");
      if (!rows.IsSequence() || rows.size() < 2) r.fail("rows", "must be a list of at least 2 {params, flops, tokens}");
      for (const auto& row : rows) {
        FieldReader rr(row, r.file(), "row of law '" + law.name + "'");
        AllocationRow a{rr.positive("params"), rr.positive("flops"), rr.positive("tokens")};
        rr.finish();
        if (!t.rows.empty() && !(a.flops > t.rows.back().flops))
          rr.fail("flops", "rows must be in increasing order of flops");
        t.rows.push_back(a);
      }
      t.exponent_a = r.positive("exponent_a");
      t.exponent_b = r.positive("exponent_b");
      law.form = std::move(t);
      break;
    }
  }
  law.convention = r.string_or("convention", "");
  law.parameters = r.string_or("parameters", "total");
  if (law.parameters != "total" && law.parameters != "non-embedding")
    r.fail("parameters", "'" + law.parameters + "' is not one of total|non-embedding");
  law.dataset = r.string_or("dataset", "");
  law.note = r.string_or("note", "");
  if (const auto range = r.optional_child("fitted_params")) {
    FieldReader f(*range, r.file(), "fitted_params of law '" + law.name + "'");
    law.fitted_params = f.range("range", 1, "smallest, largest");
    law.fitted_params_source = f.string("source");
    f.finish();
  }
  read_source(r, law);
  return law;
}

}  // namespace isoflop::catalog
