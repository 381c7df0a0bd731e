// isoflop catalog [hardware|grids|laws|models|cost] [NAME]: list catalog entries with their sources.
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "catalog",
    "isoflop catalog [hardware|grids|laws|models|cost] [NAME] [options]",
    "Lists the built-in catalogs (overlaid by --catalog DIR) with the source of every number: accelerators,\n"
    "nodes and clusters (hardware), grid carbon intensities and PUE presets (grids), scaling laws (laws)\n"
    "and reference architectures with the shaping families and ST-MoE's recommendations (models), run-cost constants and embodied carbon (cost). With NAME, shows one\n"
    "entry in full.",
    {"isoflop catalog                          # everything, one line per entry",
     "isoflop catalog hardware a100-sxm4-80gb  # one accelerator with its sources",
     "isoflop catalog laws -o json             # the laws as JSON",
     "isoflop catalog grids --catalog ./mine   # with your own overrides"}};

Json accelerator_json(const catalog::Accelerator& a) {
  Json j = {{"name", a.name},
            {"display_name", a.display_name},
            {"vendor", a.vendor},
            {"peak_16bit_tflops", a.peak_16bit_flops / 1e12}};
  if (a.peak_fp32_flops > 0) j["peak_fp32_tflops"] = a.peak_fp32_flops / 1e12;  // unpublished for TPUs
  if (a.peak_fp8_flops) j["peak_fp8_tflops"] = *a.peak_fp8_flops / 1e12;
  j["memory_gb"] = a.memory_bytes / 1e9;
  j["memory_bandwidth_gb_per_s"] = a.memory_bandwidth_bytes_per_s / 1e9;
  j["tdp_w"] = a.tdp_w;
  if (a.measured_power_w) j["measured_power_w"] = *a.measured_power_w;
  if (!a.reference_node.empty()) j["reference_node"] = a.reference_node;
  j["source"] = a.source;
  return j;
}

Json node_json(const catalog::Node& n) {
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

Json cluster_json(const catalog::Cluster& c) {
  return {{"name", c.name}, {"display_name", c.display_name}, {"node", c.node},
          {"nodes", c.nodes}, {"network", c.network},         {"source", c.source}};
}

Json grid_json(const catalog::Grid& g) {
  return {{"name", g.name},
          {"display_name", g.display_name},
          {"kind", g.kind},
          {"intensity_g_per_kwh", g.intensity_kg_per_kwh * 1e3},
          {"year", g.year},
          {"source", g.source}};
}

Json pue_json(const catalog::PuePreset& p) {
  return {{"name", p.name}, {"display_name", p.display_name}, {"pue", p.pue}, {"source", p.source}};
}

Json law_json(const catalog::LawSpec& l) {
  Json j = {{"name", l.name}, {"display_name", l.display_name}, {"kind", std::string(catalog::kLawKindNames.name(l.kind))}};
  switch (l.kind) {
    case catalog::LawKind::kParametric:
    case catalog::LawKind::kDataConstrained:
      j["E"] = l.E;
      j["A"] = l.A;
      j["B"] = l.B;
      j["alpha"] = l.alpha;
      j["beta"] = l.beta;
      if (l.kind == catalog::LawKind::kParametric && l.r_d_star > 0) j["r_d_star"] = l.r_d_star;
      if (l.kind == catalog::LawKind::kDataConstrained) {
        j["r_d_star"] = l.r_d_star;
        j["r_n_star"] = l.r_n_star;
      }
      break;
    case catalog::LawKind::kKaplan:
      j["n_c"] = l.kaplan_nc;
      j["d_c"] = l.kaplan_dc;
      j["alpha_n"] = l.kaplan_alpha_n;
      j["alpha_d"] = l.kaplan_alpha_d;
      j["frontier_coefficient"] = l.kaplan_frontier_coefficient;
      j["frontier_exponent"] = l.kaplan_frontier_exponent;
      j["flops_per_pf_day"] = l.kaplan_flops_per_pf_day;
      break;
    case catalog::LawKind::kPowerLaw:
      j["tokens_coefficient"] = l.tokens_coefficient;
      j["tokens_exponent"] = l.tokens_exponent;
      break;
    case catalog::LawKind::kAllocationTable: {
      Json rows = Json::array();
      for (const auto& r : l.rows) rows.push_back({{"params", r.params}, {"flops", r.flops}, {"tokens", r.tokens}});
      j["rows"] = rows;
      j["exponent_a"] = l.table_exponent_a;
      j["exponent_b"] = l.table_exponent_b;
      break;
    }
  }
  if (!l.convention.empty()) j["convention"] = l.convention;
  if (!l.note.empty()) j["note"] = l.note;
  j["source"] = l.source;
  return j;
}

Json model_json(const catalog::ModelEntry& m) {
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
  if (a.moe.enabled())
    j["moe"] = {{"experts", a.moe.experts}, {"top_k", a.moe.top_k}, {"capacity_factor", a.moe.capacity_factor},
                {"every", a.moe.every}};
  if (m.published_params > 0) j["published_params"] = m.published_params;
  if (m.tokens_trained > 0) j["tokens_trained"] = m.tokens_trained;
  j["source"] = m.source;
  return j;
}

Json run_cost_json(const catalog::RunCostConstants& c) {
  return {{"name", c.name},
          {"tdp_utilisation", c.tdp_utilisation},
          {"host_overhead_w", c.host_overhead_w},
          {"lifetime_years", c.lifetime_s / (365 * 86400.0)},
          {"memory_kg_per_gb", c.memory_kg_per_gb},
          {"model_factor", c.model_factor},
          {"mechanization_pue", c.mechanization_pue},
          {"source", c.tdp_source + "; " + c.embodied_source + "; " + c.model_source + "; " + c.mechanization_source}};
}

Json shape_family_json(const catalog::ShapeFamily& f) {
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
  if (f.vocab_pad_per_tp > 0) j["vocab_pad_per_tp"] = f.vocab_pad_per_tp;
  j["source"] = f.source;
  return j;
}

Json moe_recommendations_json(const catalog::MoeRecommendations& m) {
  return {{"name", m.name},
          {"top_k", m.top_k},
          {"capacity_factor", m.capacity_factor},
          {"eval_capacity_factor", m.eval_capacity_factor},
          {"max_experts", m.max_experts},
          {"max_experts_per_device", m.max_experts_per_device},
          {"every", m.every},
          {"source", m.source}};
}

Json embodied_carbon_json(const catalog::EmbodiedCarbon& e) {
  return {{"name", e.name}, {"die_area_cm2", e.die_area_cm2}, {"kg_per_cm2", e.kg_per_cm2}, {"source", e.source}};
}

template <typename T, typename F>
Json section(const std::vector<T>& items, F to_json, const std::string& name) {
  Json out = Json::array();
  for (const auto& item : items)
    if (name.empty() || item.name == name) out.push_back(to_json(item));
  return out;
}

std::string summary_line(const Json& entry) {
  std::string detail;
  auto add = [&](const std::string& text) { detail += (detail.empty() ? "" : ", ") + text; };
  if (entry.contains("peak_16bit_tflops"))
    add(units::format_significant(entry["peak_16bit_tflops"].get<double>()) + " TFLOP/s 16-bit, " +
        units::format_significant(entry["memory_gb"].get<double>()) + " GB");
  if (entry.contains("gpus_per_node"))
    add(std::to_string(entry["gpus_per_node"].get<int>()) + "× " + entry["accelerator"].get<std::string>() + ", " +
        units::format_significant(entry["max_power_kw"].get<double>()) + " kW max");
  if (entry.contains("nodes") && entry.contains("node"))
    add(std::to_string(entry["nodes"].get<int>()) + "× " + entry["node"].get<std::string>());
  if (entry.contains("intensity_g_per_kwh"))
    add(units::format_significant(entry["intensity_g_per_kwh"].get<double>()) + " g/kWh (" +
        std::to_string(entry["year"].get<int>()) + ")");
  if (entry.contains("pue")) add("PUE " + units::format_significant(entry["pue"].get<double>()));
  if (entry.contains("kind") && entry.contains("source") && !entry.contains("intensity_g_per_kwh"))
    add(entry["kind"].get<std::string>());
  if (entry.contains("host_overhead_w"))
    add("TDP x " + units::format_significant(entry["tdp_utilisation"].get<double>()) + " + " +
        units::format_significant(entry["host_overhead_w"].get<double>()) + " W host, " +
        units::format_significant(entry["lifetime_years"].get<double>()) + "-year life");
  if (entry.contains("die_area_cm2"))
    add(units::format_significant(entry["die_area_cm2"].get<double>()) + " cm2 x " +
        units::format_significant(entry["kg_per_cm2"].get<double>()) + " kg/cm2");
  if (entry.contains("rule"))
    add(entry["rule"].get<std::string>() + " rule, block " + entry["block"].get<std::string>() + ", " +
        std::to_string(entry.contains("rows") ? entry["rows"].size() : entry["bands"].size()) +
        (entry.contains("rows") ? " shapes" : " bands"));
  if (entry.contains("max_experts"))
    add("top-" + std::to_string(entry["top_k"].get<int>()) + ", capacity " +
        units::format_significant(entry["capacity_factor"].get<double>()) + " / " +
        units::format_significant(entry["eval_capacity_factor"].get<double>()) + ", <= " +
        std::to_string(entry["max_experts"].get<int>()) + " experts");
  if (entry.contains("layers"))
    add(std::to_string(entry["layers"].get<int>()) + " layers × " + std::to_string(entry["d_model"].get<long long>()));
  return detail;
}

std::string render_table(const Json& doc, bool full) {
  std::string out;
  for (const auto& [group, items] : doc["sections"].items()) {
    if (items.empty()) continue;
    out += group + ":\n";
    if (full) {
      for (const auto& entry : items) {
        std::vector<std::pair<std::string, std::string>> kv;
        for (const auto& [key, value] : entry.items())
          kv.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
        out += report::render_key_values(kv) + "\n";
      }
      continue;
    }
    report::TextTable table({"name", "summary", "source"}, {false, false, false});
    for (const auto& entry : items) {
      std::string source = entry["source"].get<std::string>();
      if (source.size() > 70) source = source.substr(0, 67) + "...";
      table.add_row({entry["name"].get<std::string>(), summary_line(entry), source});
    }
    out += table.render() + "\n";
  }
  return out;
}

}  // namespace

int run_catalog(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("kind", po::value<std::string>(), "hardware|grids|laws|models|cost")(
      "name", po::value<std::string>(), "one entry's id");
  po::positional_options_description positional;
  positional.add("kind", 1).add("name", 1);
  auto parsed = parse_command_line(kHelp, args, options, &positional);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const std::string kind = get_string(vm, "kind").value_or("all");
  const std::string name = get_string(vm, "name").value_or("");
  static const std::vector<std::string> kKinds = {"hardware", "grids", "laws", "models", "cost"};
  if (kind != "all" && std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end())
    throw InputError("catalog: unknown kind '" + kind + "'" + did_you_mean(kind, kKinds) + "; accepted: " + join(kKinds));

  const catalog::Catalog cat = load_catalog(parsed->common);
  Json sections = Json::object();
  const bool all = kind == "all";
  if (all || kind == "hardware") {
    sections["accelerators"] = section(cat.accelerators, accelerator_json, name);
    sections["nodes"] = section(cat.nodes, node_json, name);
    sections["clusters"] = section(cat.clusters, cluster_json, name);
  }
  if (all || kind == "grids") {
    sections["grids"] = section(cat.grids, grid_json, name);
    sections["pue"] = section(cat.pue_presets, pue_json, name);
  }
  if (all || kind == "laws") sections["laws"] = section(cat.laws, law_json, name);
  if (all || kind == "models") {
    sections["models"] = section(cat.models, model_json, name);
    sections["shape_families"] = section(cat.shape_families, shape_family_json, name);
    sections["moe_recommendations"] = section(cat.moe_recommendations, moe_recommendations_json, name);
  }
  if (all || kind == "cost") {
    sections["run_cost"] = section(cat.run_cost, run_cost_json, name);
    sections["embodied_carbon"] = section(cat.embodied_carbon, embodied_carbon_json, name);
  }
  if (!name.empty()) {
    bool found = false;
    std::vector<std::string> names;
    for (const auto& [_, items] : sections.items())
      for (const auto& entry : items) {
        found = true;
        (void)entry;
      }
    if (!found) {
      auto collect = [&](const auto& items) {
        for (const auto& i : items) names.push_back(i.name);
      };
      if (all || kind == "hardware") collect(cat.accelerators), collect(cat.nodes), collect(cat.clusters);
      if (all || kind == "grids") collect(cat.grids), collect(cat.pue_presets);
      if (all || kind == "laws") collect(cat.laws);
      if (all || kind == "models") collect(cat.models), collect(cat.shape_families), collect(cat.moe_recommendations);
      if (all || kind == "cost") collect(cat.run_cost), collect(cat.embodied_carbon);
      throw InputError("catalog: no " + (all ? std::string("entry") : kind + " entry") + " named '" + name + "'" +
                       did_you_mean(name, names));
    }
  }
  Json doc = {{"schema", "isoflop/catalog/v1"},
              {"inputs", {{"kind", kind}, {"name", name}, {"catalog_dir", parsed->common.catalog_dir.value_or("")}}},
              {"sections", sections}};
  Json rows = Json::array();
  for (const auto& [group, items] : sections.items())
    for (const auto& entry : items) {
      Json row = {{"section", group}};
      row.update(entry);
      rows.push_back(row);
    }
  write_result(parsed->common, doc, [&] { return render_table(doc, !name.empty()); }, &rows);
  return 0;
}

}  // namespace isoflop::app
