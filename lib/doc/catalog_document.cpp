// The `catalog` document: choosing entries, JSON, and the human page.
#include "doc/catalog_document.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

const std::vector<std::string> kKinds = {"all", "hardware", "grids", "laws", "models", "cost"};

struct Lister {
  const CatalogRequest& request;
  std::vector<Json>* entries;
  std::vector<std::string> names;  // every listed section's names, for suggestions

  template <class T>
  void section(const char* name, const std::vector<T>& items) {
    for (const auto& item : items) {
      names.push_back(item.name);
      if (request.name && item.name != *request.name) continue;
      Json entry = {{"section", name}};
      entry.update(entry_json(item));
      entries->push_back(std::move(entry));
    }
  }
};

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
  if (entry.contains("intensity_kg_per_kwh"))
    add(units::format_significant(entry["intensity_kg_per_kwh"].get<double>() * 1e3) + " g/kWh (" +
        std::to_string(entry["year"].get<int>()) + ")");
  if (entry.contains("pue")) add("PUE " + units::format_significant(entry["pue"].get<double>()));
  if (entry.contains("kind") && entry.contains("source") && !entry.contains("intensity_kg_per_kwh"))
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

}  // namespace

CatalogDocument catalog_document(const catalog::Catalog& cat, const CatalogRequest& request) {
  if (std::find(kKinds.begin(), kKinds.end(), request.kind) == kKinds.end())
    throw FieldError("kind", "unknown kind '" + request.kind + "'" + did_you_mean(request.kind, kKinds) +
                                 "; accepted: " + join(kKinds));
  CatalogDocument d{request, {}};
  Lister list{request, &d.entries, {}};
  const bool all = request.kind == "all";
  if (all || request.kind == "hardware") {
    list.section("accelerators", cat.accelerators);
    list.section("nodes", cat.nodes);
    list.section("clusters", cat.clusters);
  }
  if (all || request.kind == "grids") {
    list.section("grids", cat.grids);
    list.section("pue", cat.pue_presets);
  }
  if (all || request.kind == "laws") list.section("laws", cat.laws);
  if (all || request.kind == "models") {
    list.section("models", cat.models);
    list.section("shape_families", cat.shape_families);
    list.section("moe_recommendations", cat.moe_recommendations);
  }
  if (all || request.kind == "cost") {
    list.section("run_cost", cat.run_cost);
    list.section("embodied_carbon", cat.embodied_carbon);
  }
  if (request.name && d.entries.empty())
    throw FieldError("name", "no " + (all ? std::string("entry") : request.kind + " entry") + " named '" +
                                 *request.name + "'" + did_you_mean(*request.name, list.names));
  return d;
}

void to_json(Json& j, const CatalogDocument& d) {
  j = Json::object();
  j["schema"] = schema_id("catalog");
  j["inputs"] = {{"kind", d.inputs.kind}, {"name", or_null(d.inputs.name)}, {"catalog_dir", or_null(d.inputs.catalog_dir)}};
  j["entries"] = d.entries;
}

void from_json(const Json& j, CatalogDocument& d) {
  const Json& inputs = j.at("inputs");
  read(inputs, "kind", d.inputs.kind);
  read(inputs, "name", d.inputs.name);
  read(inputs, "catalog_dir", d.inputs.catalog_dir);
  const Json& entries = j.at("entries");
  if (!entries.is_array()) fail_at(entries, "must be an array");
  d.entries.clear();
  for (const auto& e : entries) {
    if (!e.is_object()) fail_at(e, "must be an object");
    std::string section;
    read(e, "section", section);
    d.entries.push_back(e);
  }
}

std::string render_catalog(const CatalogDocument& d) {
  const bool full = d.inputs.name.has_value();
  std::string out;
  for (size_t i = 0; i < d.entries.size();) {
    const std::string section = d.entries[i]["section"].get<std::string>();
    out += section + ":\n";
    report::TextTable table({"name", "summary", "source"}, {false, false, false});
    for (; i < d.entries.size() && d.entries[i]["section"] == section; ++i) {
      const Json& entry = d.entries[i];
      if (full) {
        std::vector<std::pair<std::string, std::string>> kv;
        for (const auto& [key, value] : entry.items())
          if (key != "section") kv.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
        out += report::render_key_values(kv) + "\n";
        continue;
      }
      std::string source = entry["source"].get<std::string>();
      if (source.size() > 70) source = source.substr(0, 67) + "...";
      table.add_row({entry["name"].get<std::string>(), summary_line(entry), source});
    }
    if (!full) out += table.render() + "\n";
  }
  return out;
}

}  // namespace isoflop::doc
