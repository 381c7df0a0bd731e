// The `catalog` document: choosing entries, JSON, and the human page.
#include "doc/catalog_document.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "parallel/time_model.hpp"
#include "parallel/trainer_rules.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

const std::vector<std::string> kKinds = {"all", "hardware", "grids", "laws", "models", "cost", "trainers"};

// The catalog's lists in the order of CatalogEntry's types (and of kCatalogSections).
constexpr auto kLists = std::tuple{
    &catalog::Catalog::accelerators, &catalog::Catalog::nodes,           &catalog::Catalog::clusters,
    &catalog::Catalog::grids,        &catalog::Catalog::pue_presets,     &catalog::Catalog::laws,
    &catalog::Catalog::models,       &catalog::Catalog::shape_families,  &catalog::Catalog::moe_recommendations,
    &catalog::Catalog::run_cost,     &catalog::Catalog::embodied_carbon, &catalog::Catalog::trainers};

// A trainer's ZeRO stages as the summaries write them: "0/1/3".
std::string stages_text(const std::vector<int>& stages) {
  std::string text;
  for (const int z : stages) text += (text.empty() ? "" : "/") + std::to_string(z);
  return text;
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
  if (entry.contains("rules")) {  // a trainer: what it runs, in short
    const Json& r = entry["rules"];
    const auto supported = [&](const char* id) { return r[id]["supported"].get<bool>(); };
    add(entry["version"].get<std::string>() + ": ZeRO " +
        stages_text(r["zero_stages"]["stages"].get<std::vector<int>>()) +
        (supported("zero3_tied_embeddings") ? "" : " (ZeRO-3 untied only)") + (supported("pipeline") ? ", PP" : "") +
        (supported("uneven_stages") ? " uneven" : "") + (supported("interleaving") ? ", VPP" : "") +
        (supported("context_parallel") ? ", CP" : "") + (supported("expert_parallel") ? ", EP" : ""));
  }
  if (entry.contains("layers"))
    add(std::to_string(entry["layers"].get<int>()) + " layers × " + std::to_string(entry["d_model"].get<long long>()));
  return detail;
}

}  // namespace

CatalogDocument catalog_document(const catalog::Catalog& cat, const CatalogRequest& request) {
  // A kind, or one section of it by the name the full listing heads it with ("shape_families").
  const auto is_section = [&](const CatalogSection& c) { return c.name == request.kind; };
  const bool one_section = std::any_of(kCatalogSections.begin(), kCatalogSections.end(), is_section);
  if (!one_section && std::find(kKinds.begin(), kKinds.end(), request.kind) == kKinds.end()) {
    std::vector<std::string> sections;
    for (const auto& c : kCatalogSections) sections.emplace_back(c.name);
    std::vector<std::string> both = kKinds;
    both.insert(both.end(), sections.begin(), sections.end());
    throw FieldError("kind", "unknown kind '" + request.kind + "'" + did_you_mean(request.kind, both) +
                                 "; accepted: " + join(kKinds) + ", or one section: " + join(sections));
  }
  CatalogDocument d{request, {}};
  const bool all = request.kind == "all";
  std::vector<std::string> names;  // of every listed section, for suggestions
  size_t section = 0;
  const auto list = [&](const auto& items) {
    const CatalogSection& here = kCatalogSections[section++];
    if (all || here.kind == request.kind || here.name == request.kind)
      for (const auto& item : items) {
        names.push_back(item.name);
        if (!request.name || item.name == *request.name) d.entries.push_back({item});
      }
  };
  std::apply([&](auto... lists) { (list(cat.*lists), ...); }, kLists);
  if (request.name && d.entries.empty()) {
    // The name is typed as `catalog KIND NAME` or --name: the message quotes it rather than naming an option.
    constexpr size_t kListedNames = 40;
    const std::string where = all ? std::string("the catalog") : request.kind;
    throw InputError("no entry named '" + *request.name + "' in " + where + did_you_mean(*request.name, names) +
                     (names.size() <= kListedNames ? "; accepted: " + join(names)
                                                   : "; 'isoflop catalog " + request.kind + "' lists them"));
  }
  return d;
}

namespace {

// What the launch file isoflop writes for a trainer cannot say of its rules (parallel::as_written): "" for the
// other entries and for a trainer whose file says all.
std::string written_line(const CatalogEntry& e) {
  const auto* rules = std::get_if<catalog::TrainerRules>(&e.entry);
  if (!rules) return "";
  const catalog::TrainerRules written = parallel::as_written(*rules);
  if (written.narrowed_rules.empty()) return "";
  std::string out = "; its " + written.written_as + " as isoflop writes it: ";
  const auto narrowed = [&](const char* id) {
    return std::find(written.narrowed_rules.begin(), written.narrowed_rules.end(), id) != written.narrowed_rules.end();
  };
  std::vector<std::string> parts;
  if (narrowed("uneven_stages")) parts.push_back("even stages");
  if (narrowed("zero_stages")) parts.push_back("ZeRO " + stages_text(written.zero_stages));
  if (narrowed("grad_reduce"))
    parts.push_back("gradients in " + std::string(parallel::kGradReduceNames.name(written.defaults.grad_reduce)));
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string cell_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {  // every digit the record has; counts from a million up in scientific notation
    const double v = value.get<double>();
    return std::fabs(v) >= 1e6 ? units::format_scientific(v, 15) : units::format_significant(v, 15);
  }
  return value.dump();
}

// One entry shown in full, in words rather than JSON: nested objects as "rules.pipeline" keys, lists of values
// joined by commas, lists of records as a table under their key.
void full_entry_lines(const std::string& key, const Json& value, std::vector<std::pair<std::string, std::string>>* kv,
                      std::string* tables) {
  if (value.is_object()) {
    for (const auto& [k, v] : value.items()) full_entry_lines(key + "." + k, v, kv, tables);
    return;
  }
  if (!value.is_array()) {
    kv->emplace_back(key, cell_text(value));
    return;
  }
  if (value.empty() || !value.front().is_object()) {
    std::string joined;
    for (const auto& v : value) joined += (joined.empty() ? "" : ", ") + cell_text(v);
    kv->emplace_back(key, joined);
    return;
  }
  std::vector<std::string> header;
  for (const auto& [k, _] : value.front().items()) header.push_back(k);
  report::TextTable table(header, std::vector<bool>(header.size(), true));
  for (const auto& row : value) {
    std::vector<std::string> cells;
    for (const auto& column : header) cells.push_back(row.contains(column) ? cell_text(row.at(column)) : "");
    table.add_row(std::move(cells));
  }
  *tables += "  " + key + ":\n";
  const std::string text = table.render();
  for (size_t at = 0; at < text.size();) {  // indented under the entry
    const size_t eol = text.find('\n', at);
    *tables += "    " + text.substr(at, eol - at + 1);
    at = eol + 1;
  }
}

}  // namespace

std::string render_catalog(const CatalogDocument& d) {
  const bool full = d.inputs.name.has_value();
  const Json entries = d.entries;
  std::string out;
  for (size_t i = 0; i < entries.size();) {
    const std::string section = entries[i]["section"].get<std::string>();
    out += section + ":\n";
    report::TextTable table({"name", "summary", "source"}, {false, false, false});
    for (; i < entries.size() && entries[i]["section"] == section; ++i) {
      const Json& entry = entries[i];
      if (full) {
        std::vector<std::pair<std::string, std::string>> kv;
        std::string tables;  // a list of records (a family's shape rows) as a table of its own, after the values
        for (const auto& [key, value] : entry.items())
          if (key != "section") full_entry_lines(key, value, &kv, &tables);
        out += report::render_key_values(kv) + tables + "\n";
        continue;
      }
      std::string source = entry["source"].get<std::string>();
      if (source.size() > 70) source = source.substr(0, 67) + "...";
      table.add_row({entry["name"].get<std::string>(), summary_line(entry) + written_line(d.entries[i]), source});
    }
    if (!full) out += table.render() + "\n";
  }
  return out;
}

}  // namespace isoflop::doc
