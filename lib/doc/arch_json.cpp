// JSON of the arch document: the best candidate's values at the top level, the runners-up ranked.
#include "doc/arch_document.hpp"

namespace isoflop::doc {
namespace {

using C = model::FamilyShapeCandidate;
using D = ArchDocument;

// A candidate's own values; its counts follow from the architecture.
constexpr auto kCandidate =
    std::tuple{field("architecture", &C::architecture), field("ratio", &C::ratio), field("score", &C::score),
               field("preferred", &C::preferred), on_read([](const Json&, C& c) {
                 const model::ParamCount pc = model::count_params(c.architecture);
                 c.params = pc.total();
                 c.active_params = pc.active;
               })};

Json alternatives_json(const D& d) {
  Json alternatives = Json::array();
  for (size_t i = 0; i < d.alternatives.size(); ++i) {
    Json a = {{"rank", i + 2}};
    write_all(a, d.alternatives[i], kCandidate);
    alternatives.push_back(std::move(a));
  }
  return alternatives;
}

void read_alternatives(const Json& alternatives, D& d) {
  if (!alternatives.is_array()) fail_at(alternatives, "must be an array");
  for (const auto& a : alternatives) read_fields(a, d.alternatives.emplace_back(), kCandidate);
}

constexpr auto kArchDocument = std::tuple{
    schema_key("arch"),
    field("inputs", &D::inputs), field("family", &D::family),
    via(&D::best, std::get<0>(kCandidate)),
    derived("target_params", [](const D& d) { return d.inputs.params; }),
    via(&D::best, std::get<1>(kCandidate), std::get<2>(kCandidate), std::get<3>(kCandidate), std::get<4>(kCandidate)),
    field("d_model_multiple", &D::d_model_multiple),
    derived("params", [](const D& d) { return Json(model::count_params(d.best.architecture)); }),
    derived("flops_per_token", [](const D& d) { return d.flops_per_token(); }),
    derived("dense_equivalent_params", [](const D& d) { return d.dense_equivalent_params(); }),
    custom("alternatives", alternatives_json, read_alternatives),
    group_if(
        "moe_advice", [](const D& d) { return d.moe_recommended.has_value(); },
        field("recommended", &D::moe_recommended), field("departures", &D::moe_departures))};

}  // namespace

void to_json(Json& j, const ArchDocument& d) { write_fields(j, d, kArchDocument); }
void from_json(const Json& j, ArchDocument& d) { read_fields(j, d, kArchDocument); }

}  // namespace isoflop::doc
