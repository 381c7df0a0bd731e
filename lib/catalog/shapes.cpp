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

// The items of the non-empty list `key` (`what`: "shapes"), each read by parse(reader) and then finished.
template <class Item, class Parse>
std::vector<Item> read_list(FieldReader& r, const std::string& key, const char* what, const std::string& item,
                            Parse parse) {
  const YAML::Node list = r.child(key);
  if (!list.IsSequence() || list.size() == 0) r.fail(key, std::string("must be a non-empty list of ") + what);
  std::vector<Item> items;
  for (const auto& node : list) {
    FieldReader reader(node, r.file(), item);
    items.push_back(parse(reader, items));
    reader.finish();
  }
  return items;
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
    f.rows = read_list<ShapeRow>(r, "rows", "shapes", "row of shape family '" + f.name + "'",
                                 [](FieldReader& row, const std::vector<ShapeRow>&) {
                                   ShapeRow s;
                                   s.params = row.positive("params");
                                   s.d_model = row.positive_integer("d_model");
                                   s.layers = small_int(row, "layers");
                                   s.heads = small_int(row, "heads");
                                   s.head_size = row.positive_integer("head_size");
                                   s.kv_heads = row.int_in_or("kv_heads", 1, s.heads, 0);
                                   if (s.kv_heads > 0 && s.heads % s.kv_heads != 0)
                                     row.fail("kv_heads", std::to_string(s.heads) + " heads are not divisible by " +
                                                              std::to_string(s.kv_heads) + " key/value heads");
                                   s.ffn = row.positive_integer_or("ffn", 0);
                                   // A dense block's ffn is a few d_model (Llama 2.6875-3.5, GELU 4): a width
                                   // outside d_model/4 ... 16 d_model is a typo, and would shape no model.
                                   if (s.ffn > 0 && (s.ffn < (s.d_model + 3) / 4 || s.ffn / 16 > s.d_model))
                                     row.fail("ffn", std::to_string(s.ffn) +
                                                         " is not within d_model/4 to 16 d_model "
                                                         "(d_model " +
                                                         std::to_string(s.d_model) + ")");
                                   return s;
                                 });
  } else {
    f.bands = read_list<ShapeBand>(r, "bands", "size bands", "band of shape family '" + f.name + "'",
                                   [](FieldReader& band, const std::vector<ShapeBand>& before) {
                                     ShapeBand b;
                                     b.below_params = band.positive("below");
                                     b.d_model = band.positive_integer("d_model");
                                     b.heads = small_int(band, "heads");
                                     if (!before.empty() && b.below_params <= before.back().below_params)
                                       band.fail("below", "bands must be listed in ascending order of size");
                                     return b;
                                   });
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
