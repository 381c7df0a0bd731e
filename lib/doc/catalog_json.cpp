// Catalog entries as JSON objects, with units in their keys and the source of every number.
#include "doc/arch_document.hpp"
#include "doc/catalog_document.hpp"

namespace isoflop::doc {

Json entry_json(const catalog::Accelerator& a) {
  Json j = {{"name", a.name},
            {"display_name", a.display_name},
            {"vendor", a.vendor},
            {"peak_16bit_tflops", a.peak_16bit_flops / 1e12}};
  j["peak_fp32_tflops"] = a.peak_fp32_flops > 0 ? Json(a.peak_fp32_flops / 1e12) : Json(nullptr);  // TPUs: none
  j["peak_fp8_tflops"] = a.peak_fp8_flops ? Json(*a.peak_fp8_flops / 1e12) : Json(nullptr);
  j["memory_gb"] = a.memory_bytes / 1e9;
  j["memory_bandwidth_gb_per_s"] = a.memory_bandwidth_bytes_per_s / 1e9;
  j["tdp_w"] = a.tdp_w;
  j["measured_power_w"] = or_null(a.measured_power_w);
  j["reference_node"] = a.reference_node.empty() ? Json(nullptr) : Json(a.reference_node);
  j["source"] = a.source;
  return j;
}

Json entry_json(const catalog::Node& n) {
  return {{"name", n.name},
          {"display_name", n.display_name},
          {"accelerator", n.accelerator},
          {"gpus_per_node", n.gpus_per_node},
          {"max_power_kw", n.max_power_w / 1e3},
          {"intra_node_bandwidth_gb_per_s", n.intra_node_bandwidth_bytes_per_s / 1e9},
          {"inter_node_bandwidth_gb_per_s", n.inter_node_bandwidth_bytes_per_s / 1e9},
          {"network", n.network},
          {"source", n.source}};
}

Json entry_json(const catalog::Cluster& c) {
  return {{"name", c.name}, {"display_name", c.display_name}, {"node", c.node},
          {"nodes", c.nodes}, {"network", c.network},         {"source", c.source}};
}

Json entry_json(const catalog::Grid& g) {
  return {{"name", g.name},
          {"display_name", g.display_name},
          {"kind", g.kind},
          {"intensity_kg_per_kwh", g.intensity_kg_per_kwh},
          {"year", g.year},
          {"map_candidate", g.map_candidate},
          {"source", g.source}};
}

Json entry_json(const catalog::PuePreset& p) {
  return {{"name", p.name}, {"display_name", p.display_name}, {"pue", p.pue}, {"source", p.source}};
}

namespace {

// Each kind of law writes its own constants, under the names laws.yaml uses.
struct LawConstants {
  Json& j;
  void parametric(const catalog::ParametricLaw& p) {
    j["E"] = p.E;
    j["A"] = p.A;
    j["B"] = p.B;
    j["alpha"] = p.alpha;
    j["beta"] = p.beta;
  }
  void operator()(const catalog::ParametricLaw& p) {
    parametric(p);
    j["r_d_star"] = p.r_d_star > 0 ? Json(p.r_d_star) : Json(nullptr);
  }
  void operator()(const catalog::DataConstrainedLaw& d) {
    parametric(d.base);
    j["r_d_star"] = d.base.r_d_star;
    j["r_n_star"] = d.r_n_star;
  }
  void operator()(const catalog::KaplanLaw& k) {
    j["n_c"] = k.nc;
    j["d_c"] = k.dc;
    j["alpha_n"] = k.alpha_n;
    j["alpha_d"] = k.alpha_d;
    j["frontier_coefficient"] = k.frontier_coefficient;
    j["frontier_exponent"] = k.frontier_exponent;
    j["flops_per_pf_day"] = k.flops_per_pf_day;
  }
  void operator()(const catalog::PowerLawAllocation& p) {
    j["tokens_coefficient"] = p.tokens_coefficient;
    j["tokens_exponent"] = p.tokens_exponent;
  }
  void operator()(const catalog::AllocationTableLaw& t) {
    Json rows = Json::array();
    for (const auto& r : t.rows) rows.push_back({{"params", r.params}, {"flops", r.flops}, {"tokens", r.tokens}});
    j["rows"] = rows;
    j["exponent_a"] = t.exponent_a;
    j["exponent_b"] = t.exponent_b;
  }
};

}  // namespace

Json entry_json(const catalog::LawSpec& l) {
  Json j = {{"name", l.name}, {"display_name", l.display_name}, {"kind", std::string(catalog::kLawKindNames.name(l.kind()))}};
  std::visit(LawConstants{j}, l.form);
  j["convention"] = l.convention.empty() ? Json(nullptr) : Json(l.convention);
  j["parameters"] = l.parameters;
  j["dataset"] = l.dataset.empty() ? Json(nullptr) : Json(l.dataset);
  j["note"] = l.note.empty() ? Json(nullptr) : Json(l.note);
  j["source"] = l.source;
  return j;
}

Json entry_json(const catalog::ModelEntry& m) {
  const auto& a = m.architecture;
  Json j = {{"name", m.name},
            {"display_name", m.display_name},
            {"layers", a.layers},
            {"d_model", a.d_model},
            {"heads", a.heads},
            {"kv_heads", a.effective_kv_heads()},
            {"head_size", a.effective_head_size()},
            {"ffn", a.ffn},
            {"activation", std::string(model::kActivationNames.name(a.activation))},
            {"vocab", a.vocab},
            {"seq", a.seq}};
  j["moe"] = nullptr;
  if (a.moe.enabled())
    j["moe"] = {{"experts", a.moe.experts}, {"top_k", a.moe.top_k}, {"capacity_factor", a.moe.capacity_factor},
                {"every", a.moe.every}};
  j["published_params"] = m.published_params > 0 ? Json(m.published_params) : Json(nullptr);
  j["tokens_trained"] = m.tokens_trained > 0 ? Json(m.tokens_trained) : Json(nullptr);
  j["source"] = m.source;
  return j;
}

Json entry_json(const catalog::RunCostConstants& c) {
  return {{"name", c.name},
          {"tdp_utilisation", c.tdp_utilisation},
          {"host_overhead_w", c.host_overhead_w},
          {"lifetime_years", c.lifetime_s / (365 * 86400.0)},
          {"memory_kg_per_gb", c.memory_kg_per_gb},
          {"model_factor", c.model_factor},
          {"mechanization_pue", c.mechanization_pue},
          {"published_ranges", c.published_ranges},
          {"default_pue", c.default_pue},
          {"batch_coefficient", c.batch_coefficient},
          {"batch_exponent", c.batch_exponent},
          {"min_mfu", c.min_mfu},
          {"source", c.tdp_source + "; " + c.embodied_source + "; " + c.model_source + "; " + c.mechanization_source +
                         "; " + c.ranges_source + "; " + c.default_pue_source + "; " + c.batch_source + "; " +
                         c.min_mfu_source}};
}

Json entry_json(const catalog::ShapeFamily& f) {
  Json j = {{"name", f.name}, {"display_name", f.display_name},
            {"rule", std::string(catalog::kShapeRuleNames.name(f.rule))}, {"block", f.block}};
  if (f.rule == catalog::ShapeRule::kAspect) {
    Json rows = Json::array();
    for (const auto& r : f.rows)
      rows.push_back({{"params", r.params}, {"d_model", r.d_model}, {"layers", r.layers}, {"heads", r.heads},
                      {"head_size", r.head_size}});
    j["smoothing_ln"] = f.smoothing_ln;
    j["rows"] = rows;
  } else {
    Json bands = Json::array();
    for (const auto& b : f.bands) bands.push_back({{"below", b.below_params}, {"d_model", b.d_model}, {"heads", b.heads}});
    j["bands"] = bands;
  }
  j["vocab_pad_per_tp"] = f.vocab_pad_per_tp > 0 ? Json(f.vocab_pad_per_tp) : Json(nullptr);
  j["source"] = f.source;
  return j;
}

Json entry_json(const catalog::MoeRecommendations& m) { return Json(m); }  // the arch document's shape

Json entry_json(const catalog::EmbodiedCarbon& e) {
  return {{"name", e.name}, {"die_area_cm2", e.die_area_cm2}, {"kg_per_cm2", e.kg_per_cm2}, {"source", e.source}};
}

}  // namespace isoflop::doc
