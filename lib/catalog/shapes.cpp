// Parsing shapes.yaml entries.
#include "catalog/shapes.hpp"

#include "catalog/entry_fields.hpp"

#include "core/error.hpp"

namespace isoflop::catalog {
namespace {

int small_int(FieldReader& r, const std::string& key) {
  const long long v = r.positive_integer(key);
  if (v > 1'000'000'000LL) r.fail(key, "is implausibly large");
  return static_cast<int>(v);
}

}  // namespace

ShapeFamily parse_shape_family(FieldReader& r) {
  ShapeFamily f;
  read_names(r, f);
  const std::string rule = r.string("rule");
  try {
    f.rule = kShapeRuleNames.parse(rule, "rule");
  } catch (const InputError&) {
    r.fail("rule", "'" + rule + "' is not one of " + join(kShapeRuleNames.names(), "|"));
  }
  f.block = r.string("block");
  if (f.rule == ShapeRule::kAspect) {
    f.smoothing_ln = r.positive("smoothing_ln");
    (void)r.string_or("smoothing_source", "");
    const YAML::Node rows = r.child("rows");
    if (!rows.IsSequence() || rows.size() == 0) r.fail("rows", "must be a non-empty list of shapes");
    for (const auto& node : rows) {
      FieldReader row(node, r.file(), "row of shape family '" + f.name + "'");
      ShapeRow s;
      s.params = row.positive("params");
      s.d_model = row.positive_integer("d_model");
      s.layers = small_int(row, "layers");
      s.heads = small_int(row, "heads");
      s.head_size = row.positive_integer("head_size");
      row.finish();
      f.rows.push_back(s);
    }
  } else {
    const YAML::Node bands = r.child("bands");
    if (!bands.IsSequence() || bands.size() == 0) r.fail("bands", "must be a non-empty list of size bands");
    for (const auto& node : bands) {
      FieldReader band(node, r.file(), "band of shape family '" + f.name + "'");
      ShapeBand b;
      b.below_params = band.positive("below");
      b.d_model = band.positive_integer("d_model");
      b.heads = small_int(band, "heads");
      if (!f.bands.empty() && b.below_params <= f.bands.back().below_params)
        band.fail("below", "bands must be listed in ascending order of size");
      band.finish();
      f.bands.push_back(b);
    }
  }
  f.vocab_pad_per_tp = r.int_in_or("vocab_pad_per_tp", 0, 1 << 20, 0);
  read_source(r, f);
  return f;
}

MoeRecommendations parse_moe_recommendations(FieldReader& r) {
  MoeRecommendations m;
  m.name = r.string("name");
  m.top_k = small_int(r, "top_k");
  m.capacity_factor = r.positive("capacity_factor");
  m.eval_capacity_factor = r.positive("eval_capacity_factor");
  m.max_experts = small_int(r, "max_experts");
  m.max_experts_per_device = small_int(r, "max_experts_per_device");
  m.every = small_int(r, "every");
  read_source(r, m);
  return m;
}

}  // namespace isoflop::catalog
