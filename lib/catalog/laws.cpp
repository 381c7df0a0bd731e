// Parsing laws.yaml entries; which fields are required depends on the law's kind.
#include "catalog/laws.hpp"

#include "core/error.hpp"

namespace isoflop::catalog {

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
      law.E = r.positive("E");
      law.A = r.positive("A");
      law.B = r.positive("B");
      law.alpha = r.positive("alpha");
      law.beta = r.positive("beta");
      if (law.kind == LawKind::kDataConstrained) {
        law.r_d_star = r.positive("r_d_star");
        law.r_n_star = r.positive("r_n_star");
      }
      break;
    case LawKind::kKaplan:
      law.kaplan_nc = r.positive("n_c");
      law.kaplan_dc = r.positive("d_c");
      law.kaplan_alpha_n = r.positive("alpha_n");
      law.kaplan_alpha_d = r.positive("alpha_d");
      law.kaplan_frontier_coefficient = r.positive("frontier_coefficient");
      law.kaplan_frontier_exponent = r.positive("frontier_exponent");
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
