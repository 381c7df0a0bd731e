// Parsing laws.yaml entries; which fields are required depends on the law's kind.
#include "catalog/laws.hpp"

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

LawSpec parse_law(FieldReader& r) {
  LawSpec law;
  law.name = r.string("name");
  law.display_name = r.string_or("display_name", law.name);
  const std::string kind = r.string("kind");
  try {
    law.kind = kLawKindNames.parse(kind, "kind");
  } catch (const InputError&) {
    r.fail("kind", "'" + kind + "' is not one of " + join(kLawKindNames.names(), "|"));
  }
  switch (law.kind) {
    case LawKind::kParametric:
    case LawKind::kDataConstrained:
      law.E = positive_or_log(r, "E");
      law.A = positive_or_log(r, "A");
      law.B = positive_or_log(r, "B");
      law.alpha = r.positive("alpha");
      law.beta = r.positive("beta");
      if (law.kind == LawKind::kDataConstrained) {
        law.r_d_star = r.positive("r_d_star");
        law.r_n_star = r.positive("r_n_star");
      } else {
        law.r_d_star = r.non_negative_or("r_d_star", 0);
      }
      break;
    case LawKind::kKaplan:
      law.kaplan_nc = r.positive("n_c");
      law.kaplan_dc = r.positive("d_c");
      law.kaplan_alpha_n = r.positive("alpha_n");
      law.kaplan_alpha_d = r.positive("alpha_d");
      law.kaplan_frontier_coefficient = r.positive("frontier_coefficient");
      law.kaplan_frontier_exponent = r.positive("frontier_exponent");
      law.kaplan_flops_per_pf_day = r.positive("flops_per_pf_day");
      break;
    case LawKind::kPowerLaw:
      law.tokens_coefficient = r.positive("tokens_coefficient");
      law.tokens_exponent = r.positive("tokens_exponent");
      if (!(law.tokens_exponent < 1)) r.fail("tokens_exponent", "must be below 1 (tokens grow slower than compute)");
      break;
    case LawKind::kAllocationTable: {
      const YAML::Node rows = r.child("rows");
      if (!rows.IsSequence() || rows.size() < 2) r.fail("rows", "must be a list of at least 2 {params, flops, tokens}");
      for (const auto& row : rows) {
        FieldReader rr(row, r.file(), "row of law '" + law.name + "'");
        AllocationRow a{rr.positive("params"), rr.positive("flops"), rr.positive("tokens")};
        rr.finish();
        if (!law.rows.empty() && !(a.flops > law.rows.back().flops))
          rr.fail("flops", "rows must be in increasing order of flops");
        law.rows.push_back(a);
      }
      law.table_exponent_a = r.positive("exponent_a");
      law.table_exponent_b = r.positive("exponent_b");
      break;
    }
  }
  law.convention = r.string_or("convention", "");
  law.note = r.string_or("note", "");
  law.source = r.string("source");
  law.file = r.where("name");
  return law;
}

}  // namespace isoflop::catalog
