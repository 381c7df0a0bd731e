// Catalog entries as JSON: each type's listing view, with units in its keys and the source of every number.
#include <algorithm>
#include <variant>

#include "doc/arch_document.hpp"
#include "doc/catalog_document.hpp"
#include "parallel/time_model.hpp"
#include "units/si.hpp"

namespace isoflop::doc {
namespace {

using catalog::Accelerator;
using catalog::Cluster;
using catalog::Grid;
using catalog::Node;
using catalog::PuePreset;

constexpr double kTera = 1e12, kGiga = 1e9;

// A quantity in a larger unit, null when it is 0 (unpublished).
struct ScaledOrNull {
  double unit;
  Json encode(double v) const { return v != 0 ? Json(v / unit) : Json(nullptr); }
  void decode(const Json& j, const char* key, double& out) const {
    NullWhen<double>{0}.decode(j, key, out);
    out *= unit;
  }
};

constexpr auto kAccelerator =
    std::tuple{field("name", &Accelerator::name),
               field("display_name", &Accelerator::display_name),
               field("vendor", &Accelerator::vendor),
               field("peak_16bit_tflops", &Accelerator::peak_16bit_flops, scaled(kTera)),
               field("peak_fp32_tflops", &Accelerator::peak_fp32_flops, ScaledOrNull{kTera}),  // TPUs: none
               field("peak_fp8_tflops", &Accelerator::peak_fp8_flops, scaled(kTera)),
               field("bf16", &Accelerator::bf16),
               field("flash_attention", &Accelerator::flash_attention),
               field("transformer_engine", &Accelerator::transformer_engine),
               field("memory_gb", &Accelerator::memory_bytes, scaled(kGiga)),
               field("memory_bandwidth_gb_per_s", &Accelerator::memory_bandwidth_bytes_per_s, scaled(kGiga)),
               field("tdp_w", &Accelerator::tdp_w),
               field("measured_power_w", &Accelerator::measured_power_w),
               field("reference_node", &Accelerator::reference_node, null_when_empty()),
               field("source", &Accelerator::source)};

constexpr auto kNode =
    std::tuple{field("name", &Node::name),
               field("display_name", &Node::display_name),
               field("accelerator", &Node::accelerator),
               field("gpus_per_node", &Node::gpus_per_node),
               field("max_power_kw", &Node::max_power_w, scaled(1e3)),
               field("intra_node_bandwidth_gb_per_s", &Node::intra_node_bandwidth_bytes_per_s, scaled(kGiga)),
               field("inter_node_bandwidth_gb_per_s", &Node::inter_node_bandwidth_bytes_per_s, scaled(kGiga)),
               field("network", &Node::network),
               field("cpu_cores", &Node::cpu_cores, null_when(0)),
               field("source", &Node::source)};

constexpr auto kCluster = std::tuple{field("name", &Cluster::name),       field("display_name", &Cluster::display_name),
                                     field("node", &Cluster::node),       field("nodes", &Cluster::nodes),
                                     field("network", &Cluster::network), field("source", &Cluster::source)};

constexpr auto kGrid =
    std::tuple{field("name", &Grid::name), field("display_name", &Grid::display_name),
               field("kind", &Grid::kind), field("intensity_kg_per_kwh", &Grid::intensity_kg_per_kwh),
               field("year", &Grid::year), field("map_candidate", &Grid::map_candidate),
               field("source", &Grid::source)};

constexpr auto kPue = std::tuple{field("name", &PuePreset::name), field("display_name", &PuePreset::display_name),
                                 field("pue", &PuePreset::pue), field("source", &PuePreset::source)};

// Each kind of law lists its own constants, under the names laws.yaml uses.
using catalog::LawSpec;
using catalog::ParametricLaw;
constexpr auto kParametricConstants =
    std::tuple{field("E", &ParametricLaw::E), field("A", &ParametricLaw::A), field("B", &ParametricLaw::B),
               field("alpha", &ParametricLaw::alpha), field("beta", &ParametricLaw::beta)};
constexpr auto kParametric =
    std::tuple_cat(kParametricConstants, std::tuple{field("r_d_star", &ParametricLaw::r_d_star, null_when(0.0)),
                                                    unless_usual("gamma", &ParametricLaw::gamma, 1.0)});
constexpr auto kDataConstrained =
    std::tuple{via(&catalog::DataConstrainedLaw::base, kParametricConstants),
               via(&catalog::DataConstrainedLaw::base, field("r_d_star", &ParametricLaw::r_d_star)),
               field("r_n_star", &catalog::DataConstrainedLaw::r_n_star)};
using catalog::KaplanLaw;
constexpr auto kKaplan = std::tuple{field("n_c", &KaplanLaw::nc),
                                    field("d_c", &KaplanLaw::dc), field("alpha_n", &KaplanLaw::alpha_n),
                                    field("alpha_d", &KaplanLaw::alpha_d),
                                    field("frontier_coefficient", &KaplanLaw::frontier_coefficient),
                                    field("frontier_exponent", &KaplanLaw::frontier_exponent),
                                    field("flops_per_pf_day", &KaplanLaw::flops_per_pf_day)};
constexpr auto kPowerLaw = std::tuple{field("tokens_coefficient", &catalog::PowerLawAllocation::tokens_coefficient),
                                      field("tokens_exponent", &catalog::PowerLawAllocation::tokens_exponent)};
using catalog::AllocationRow;
constexpr auto kAllocationRow =
    std::tuple{field("params", &AllocationRow::params), field("flops", &AllocationRow::flops),
               field("tokens", &AllocationRow::tokens)};
constexpr auto kAllocationTable = std::tuple{field("rows", &catalog::AllocationTableLaw::rows, as(kAllocationRow)),
                                             field("exponent_a", &catalog::AllocationTableLaw::exponent_a),
                                             field("exponent_b", &catalog::AllocationTableLaw::exponent_b)};

const auto& constants(const ParametricLaw&) { return kParametric; }
const auto& constants(const catalog::DataConstrainedLaw&) { return kDataConstrained; }
const auto& constants(const KaplanLaw&) { return kKaplan; }
const auto& constants(const catalog::PowerLawAllocation&) { return kPowerLaw; }
const auto& constants(const catalog::AllocationTableLaw&) { return kAllocationTable; }

// "kind", then the constants of that kind.
struct LawForm {
  void write(Json& j, const LawSpec& l) const {
    j["kind"] = enum_json(l.kind(), catalog::kLawKindNames);
    std::visit([&](const auto& form) { write_all(j, form, constants(form)); }, l.form);
  }
  void read(const Json& j, LawSpec& l) const {
    catalog::LawKind kind{};
    read_enum(j, "kind", catalog::kLawKindNames, kind);
    emplace_alternative(l.form, static_cast<size_t>(kind));
    std::visit([&](auto& form) { read_all(j, form, constants(form)); }, l.form);
  }
};

constexpr auto kLaw = std::tuple{field("name", &LawSpec::name),
                                 field("display_name", &LawSpec::display_name),
                                 LawForm{},
                                 field("convention", &LawSpec::convention, null_when_empty()),
                                 field("parameters", &LawSpec::parameters),
                                 field("dataset", &LawSpec::dataset, null_when_empty()),
                                 field("note", &LawSpec::note, null_when_empty()),
                                 field("fitted_params", &LawSpec::fitted_params, null_when(std::array<double, 2>{})),
                                 field("fitted_params_source", &LawSpec::fitted_params_source, null_when_empty()),
                                 field("source", &LawSpec::source)};

// A reference model: its block's sizes as they take effect, and what the paper states.
using catalog::ModelEntry;
using model::Architecture;
constexpr auto kModel = std::tuple{
    field("name", &ModelEntry::name), field("display_name", &ModelEntry::display_name),
    via(&ModelEntry::architecture, field("layers", &Architecture::layers), field("d_model", &Architecture::d_model),
        field("heads", &Architecture::heads),
        custom(
            "kv_heads", [](const Architecture& a) { return a.effective_kv_heads(); },
            [](const Json& v, Architecture& a) { read_value(v, a.kv_heads); }),
        custom(
            "head_size", [](const Architecture& a) { return a.effective_head_size(); },
            [](const Json& v, Architecture& a) { read_value(v, a.head_size); }),
        field("ffn", &Architecture::ffn),
        field("activation", &Architecture::activation, names(model::kActivationNames)),
        field("vocab", &Architecture::vocab), field("seq", &Architecture::seq),
        group_if(
            "moe", [](const Architecture& a) { return a.moe.enabled(); },
            via(&Architecture::moe, field("experts", &model::MoeConfig::experts),
                field("top_k", &model::MoeConfig::top_k), field("capacity_factor", &model::MoeConfig::capacity_factor),
                field("every", &model::MoeConfig::every)))),
    field("published_params", &ModelEntry::published_params, null_when(0.0)),
    field("tokens_trained", &ModelEntry::tokens_trained, null_when(0.0)), field("source", &ModelEntry::source)};

// The rows of an aspect family, or the bands of a banded one.
using model::ShapeFamily;
constexpr auto kShapeRow = std::tuple{
    field("params", &model::ShapeRow::params),          field("d_model", &model::ShapeRow::d_model),
    field("layers", &model::ShapeRow::layers),          field("heads", &model::ShapeRow::heads),
    field("head_size", &model::ShapeRow::head_size),    field("kv_heads", &model::ShapeRow::kv_heads, null_when(0)),
    field("ffn", &model::ShapeRow::ffn, null_when(0LL))};
constexpr auto kShapeBand =
    std::tuple{field("below", &model::ShapeBand::below_params), field("d_model", &model::ShapeBand::d_model),
               field("heads", &model::ShapeBand::heads)};
constexpr auto kShapeFamily = std::tuple{
    field("name", &ShapeFamily::name), field("display_name", &ShapeFamily::display_name),
    field("rule", &ShapeFamily::rule, names(model::kShapeRuleNames)), field("block", &ShapeFamily::block),
    when([](const ShapeFamily& f) { return f.rule == model::ShapeRule::kAspect; },
         field("smoothing_ln", &ShapeFamily::smoothing_ln), field("rows", &ShapeFamily::rows, as(kShapeRow))),
    when([](const ShapeFamily& f) { return f.rule != model::ShapeRule::kAspect; },
         field("bands", &ShapeFamily::bands, as(kShapeBand))),
    field("vocab_pad_per_tp", &ShapeFamily::vocab_pad_per_tp, null_when(0)), field("source", &ShapeFamily::source)};

// The sources of the groups of constants, as one line (read back as the first).
using catalog::RunCostConstants;
Json joined_sources(const RunCostConstants& c) {
  std::vector<std::string> parts;
  for (const auto* s : {&c.tdp_source, &c.embodied_source, &c.model_source, &c.mechanization_source, &c.ranges_source,
                        &c.default_pue_source, &c.batch_source, &c.min_mfu_source, &c.plausible_source})
    if (!s->empty()) parts.push_back(*s);
  return join(parts, "; ");
}
constexpr auto kRunCost = std::tuple{
    field("name", &RunCostConstants::name),
    field("tdp_utilisation", &RunCostConstants::tdp_utilisation),
    field("host_overhead_w", &RunCostConstants::host_overhead_w),
    field("lifetime_years", &RunCostConstants::lifetime_s, scaled(units::kSecondsPerYear)),
    field("memory_kg_per_gb", &RunCostConstants::memory_kg_per_gb),
    field("model_factor", &RunCostConstants::model_factor),
    field("mechanization_pue", &RunCostConstants::mechanization_pue),
    field("published_ranges", &RunCostConstants::published_ranges),
    field("default_pue", &RunCostConstants::default_pue),
    field("batch_coefficient", &RunCostConstants::batch_coefficient),
    field("batch_exponent", &RunCostConstants::batch_exponent),
    field("min_mfu", &RunCostConstants::min_mfu),
    field("max_pue", &RunCostConstants::max_pue, null_when(0.0)),
    field("max_grid_kg_per_kwh", &RunCostConstants::max_grid_kg_per_kwh, null_when(0.0)),
    field("accelerator_power_tdp", &RunCostConstants::power_tdp_ratio, null_when(std::array<double, 2>{})),
    field("min_utilisation", &RunCostConstants::min_utilisation, null_when(0.0)),
    field("max_price_per_gpu_hour_usd", &RunCostConstants::max_price_per_gpu_hour_usd, null_when(0.0)),
    field("max_price_per_kwh_usd", &RunCostConstants::max_price_per_kwh_usd, null_when(0.0)),
    custom("source", joined_sources, [](const Json& v, RunCostConstants& c) { read_value(v, c.tdp_source); })};

using catalog::EmbodiedCarbon;
constexpr auto kEmbodied =
    std::tuple{field("name", &EmbodiedCarbon::name), field("die_area_cm2", &EmbodiedCarbon::die_area_cm2),
               field("kg_per_cm2", &EmbodiedCarbon::kg_per_cm2), field("source", &EmbodiedCarbon::source)};

// A trainer's rules as data/trainers.yaml gives them: by rule id, each with its values and its source.
using catalog::TrainerDefaults;
using catalog::TrainerRules;
Json trainer_rules(const TrainerRules& t) {
  const auto rule = [&](const char* id, Json values) {
    values["source"] = t.rule_source(id);
    return values;
  };
  Json r = Json::object();
  // fp16_stages: null where an fp16 job runs every stage.
  r["zero_stages"] =
      rule("zero_stages", {{"stages", t.zero_stages},
                           {"fp16_stages", t.zero_stages_fp16.empty() ? Json(nullptr) : Json(t.zero_stages_fp16)}});
  r["zero_with_pipeline"] = rule("zero_with_pipeline", {{"max_stage", t.max_zero_stage_with_pipeline}});
  r["zero_with_experts"] =
      rule("zero_with_experts", {{"max_stage", t.max_zero_stage_with_experts},
                                 {"scope", t.zero_experts_scope_model ? "model" : "expert_parallel"}});
  r["zero3_tied_embeddings"] = rule("zero3_tied_embeddings", {{"supported", t.zero3_tied_embeddings}});
  r["tensor_parallel"] = rule("tensor_parallel", {{"supported", t.tensor_parallel}});
  r["tp_within_node"] = rule("tp_within_node", {{"enforced", t.tp_within_node}});
  r["sequence_parallel"] = rule("sequence_parallel", {{"supported", t.sequence_parallel}});
  r["pipeline"] = rule("pipeline", {{"supported", t.pipeline}});
  r["uneven_stages"] = rule("uneven_stages", {{"supported", t.uneven_stages}});
  r["interleaving"] = rule("interleaving", {{"supported", t.interleaving}, {"min_pp", t.interleaving_min_pp}});
  r["context_parallel"] =
      rule("context_parallel", {{"supported", t.context_parallel}, {"sequence_multiple", t.context_sequence_multiple}});
  r["expert_parallel"] = rule("expert_parallel", {{"supported", t.expert_parallel}, {"fp16", t.expert_parallel_fp16}});
  return r;
}
void read_trainer_rules(const Json& v, TrainerRules& t) {
  require_object(v);
  const auto at = [&](const char* id) -> const Json& {
    if (!v.contains(id)) fail_at(v, std::string("missing rule '") + id + "'");
    return v.at(id);
  };
  read_value(at("zero_stages").at("stages"), t.zero_stages);
  t.zero_stages_fp16.clear();
  if (at("zero_stages").contains("fp16_stages") && !at("zero_stages").at("fp16_stages").is_null())
    read_value(at("zero_stages").at("fp16_stages"), t.zero_stages_fp16);
  read_value(at("zero_with_pipeline").at("max_stage"), t.max_zero_stage_with_pipeline);
  read_value(at("zero_with_experts").at("max_stage"), t.max_zero_stage_with_experts);
  t.zero_experts_scope_model = at("zero_with_experts").at("scope") == "model";
  read_value(at("zero3_tied_embeddings").at("supported"), t.zero3_tied_embeddings);
  read_value(at("tensor_parallel").at("supported"), t.tensor_parallel);
  read_value(at("tp_within_node").at("enforced"), t.tp_within_node);
  read_value(at("sequence_parallel").at("supported"), t.sequence_parallel);
  read_value(at("pipeline").at("supported"), t.pipeline);
  read_value(at("uneven_stages").at("supported"), t.uneven_stages);
  read_value(at("interleaving").at("supported"), t.interleaving);
  read_value(at("interleaving").at("min_pp"), t.interleaving_min_pp);
  read_value(at("context_parallel").at("supported"), t.context_parallel);
  read_value(at("context_parallel").at("sequence_multiple"), t.context_sequence_multiple);
  read_value(at("expert_parallel").at("supported"), t.expert_parallel);
  t.expert_parallel_fp16 = true;
  if (at("expert_parallel").contains("fp16")) read_value(at("expert_parallel").at("fp16"), t.expert_parallel_fp16);
  t.rule_sources.clear();
  for (const auto id : catalog::kTrainerRuleIds) {
    std::string source;
    read_value(at(std::string(id).c_str()).at("source"), source);
    t.rule_sources.push_back(source);
  }
}
constexpr auto kTrainerDefaults =
    std::tuple{field("overlap_grad_reduce", &TrainerDefaults::overlap_grad_reduce),
               field("overlap_param_gather", &TrainerDefaults::overlap_param_gather),
               field("tp_comm_overlap", &TrainerDefaults::tp_comm_overlap),
               field("grad_reduce", &TrainerDefaults::grad_reduce, names(parallel::kGradReduceNames)),
               field("source", &TrainerDefaults::source)};
// The positions a trainer builds; null where the entry names none (any: the model is the user's own code).
Json positions_json(const TrainerRules& t) {
  if (t.positions.spelled.empty()) return nullptr;
  return {{"spelled", t.positions.spelled}, {"source", t.positions.source}};
}
void read_positions(const Json& v, TrainerRules& t) {
  t.positions = {};
  if (v.is_null()) return;
  read_value(v.at("spelled"), t.positions.spelled);
  read_value(v.at("source"), t.positions.source);
}
constexpr auto kTrainer = std::tuple{field("name", &TrainerRules::name),
                                     field("display_name", &TrainerRules::display_name),
                                     field("version", &TrainerRules::version),
                                     custom("rules", trainer_rules, read_trainer_rules),
                                     field("defaults", &TrainerRules::defaults, as(kTrainerDefaults)),
                                     custom("positional_encodings", positions_json, read_positions),
                                     field("source", &TrainerRules::source)};

const auto& listing(const Accelerator&) { return kAccelerator; }
const auto& listing(const Node&) { return kNode; }
const auto& listing(const Cluster&) { return kCluster; }
const auto& listing(const Grid&) { return kGrid; }
const auto& listing(const PuePreset&) { return kPue; }
const auto& listing(const LawSpec&) { return kLaw; }
const auto& listing(const ModelEntry&) { return kModel; }
const auto& listing(const ShapeFamily&) { return kShapeFamily; }
const auto& listing(const model::MoeRecommendations&) { return fields<model::MoeRecommendations>; }
const auto& listing(const RunCostConstants&) { return kRunCost; }
const auto& listing(const EmbodiedCarbon&) { return kEmbodied; }
const auto& listing(const TrainerRules&) { return kTrainer; }

}  // namespace

std::string_view section_name(const CatalogEntry& e) { return kCatalogSections[e.entry.index()].name; }

void to_json(Json& j, const CatalogEntry& e) {
  j = {{"section", section_name(e)}};
  std::visit([&](const auto& entry) { write_all(j, entry, listing(entry)); }, e.entry);
}

void from_json(const Json& j, CatalogEntry& e) {
  require_object(j);
  std::string section;
  read(j, "section", section);
  const auto at = std::find_if(kCatalogSections.begin(), kCatalogSections.end(),
                               [&](const CatalogSection& s) { return s.name == section; });
  if (at == kCatalogSections.end()) fail_at(j.at("section"), "'" + section + "' is not a catalog section");
  emplace_alternative(e.entry, static_cast<size_t>(at - kCatalogSections.begin()));
  std::visit([&](auto& entry) { read_all(j, entry, listing(entry)); }, e.entry);
}

}  // namespace isoflop::doc
