// The arch document as a page for people.
#include "doc/arch_document.hpp"
#include "doc/architecture_json.hpp"
#include "model/params.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

std::string percent(double ratio) { return units::format_significant(100 * ratio, 4) + "%"; }

std::string aspect(const model::Architecture& a) {
  return units::format_significant(static_cast<double>(a.d_model) / a.layers, 4);
}

std::string preference(const ArchDocument& d) {
  const model::PreferredShape& p = d.best.preferred;
  std::string out = d.family.rule == model::ShapeRule::kAspect
                        ? "family prefers " + units::format_significant(p.aspect, 4)
                        : "band d_model " + std::to_string(p.d_model) + ", " + std::to_string(p.heads) + " heads";
  if (p.beyond_family) out += "; beyond the family's largest";
  return out;
}

std::vector<std::pair<std::string, std::string>> summary(const ArchDocument& d) {
  const model::Architecture& a = d.best.architecture;
  const bool active = d.inputs.target_active;
  const int tp = d.inputs.tp;
  const long long padded = model::padded_vocab(a);
  std::vector<std::pair<std::string, std::string>> kv = {
      {"layers x d_model", std::to_string(a.layers) + " x " + std::to_string(a.d_model) + " (aspect " + aspect(a) +
                               "; " + preference(d) + ")"},
      {"heads x head size", std::to_string(a.heads) + " x " + std::to_string(a.effective_head_size()) +
                                (tp > 1 ? " (" + std::to_string(a.heads / tp) + " per GPU at TP " + std::to_string(tp) + ")"
                                        : "")},
      {"kv heads", std::to_string(a.effective_kv_heads())},
      {"ffn", std::to_string(model::mlp_hidden_size(a)) + " (" + std::string(model::kActivationNames.name(a.activation)) + ")"},
      {"vocabulary", std::to_string(a.vocab) + (padded != a.vocab ? " (padded to " + std::to_string(padded) + ")" : "")},
      {"sequence", std::to_string(a.seq) + ", " + std::string(model::kPositionalEncodingNames.name(a.positional)) +
                       " positions, " + std::string(model::kNormKindNames.name(a.norm))}};
  if (a.moe.enabled()) {
    const int moe_layers = a.layers / a.moe.every;
    kv.push_back({"experts", std::to_string(a.moe.experts) + " per MoE layer, every " + std::to_string(a.moe.every) +
                                 (a.moe.every == 1 ? "st" : "th") + " layer (" + std::to_string(moe_layers) +
                                 " MoE layers), top-" + std::to_string(a.moe.top_k) + ", capacity " +
                                 units::format_significant(a.moe.capacity_factor, 3) + " / " +
                                 units::format_significant(a.moe.eval_capacity_factor, 3) + " (train / eval)"});
  }
  kv.push_back({"parameters (exact)", units::format_count(d.best.params, 4) + " = " +
                                          units::format_scientific(d.best.params, 7) +
                                          (active ? "" : " (" + percent(d.best.ratio) + " of target)")});
  if (a.moe.enabled())
    kv.push_back({"active parameters", units::format_count(d.best.active_params, 4) +
                                           (active ? " (" + percent(d.best.ratio) + " of target)" : "")});
  kv.push_back({"FLOPs per token",
                units::format_scientific(d.flops_per_token(), 4) + " (Hoffmann et al. 2022 App. F" +
                    (a.moe.enabled() ? "; as a dense model of 6 x " + units::format_count(d.dense_equivalent_params(), 4)
                                     : "") +
                    ")"});
  return kv;
}

}  // namespace

std::string render_params_table(const model::Architecture& architecture, bool nonzero_only) {
  report::TextTable t({"component", "parameters"});
  const Json params = model::count_params(architecture);
  for (const auto& [k, v] : params.items())
    if (!nonzero_only || v.get<long long>() > 0 || k == "total") t.add_row({k, units::format_count(v.get<double>(), 4)});
  return "\nParameters by component\n" + t.render();
}

std::string render_arch_page(const ArchDocument& d) {
  const bool active = d.inputs.target_active;
  std::string out = "isoflop arch: " + units::format_count(d.inputs.params, 4) + " " +
                    (active ? "active parameters" : "parameters") + " after " + d.family.display_name + " (" +
                    d.family.name + ")\n\n";
  out += report::render_key_values(summary(d), 2);
  out += render_params_table(d.best.architecture, true);
  if (!d.alternatives.empty()) {
    out += "\nAlternatives\n";
    report::TextTable alt({"#", "layers", "d_model", "heads", "head size", "ffn", "parameters",
                           active ? "active" : "of target", "aspect"});
    int rank = 2;
    for (const auto& c : d.alternatives) {
      const model::Architecture& a = c.architecture;
      alt.add_row({std::to_string(rank++), std::to_string(a.layers), std::to_string(a.d_model), std::to_string(a.heads),
                   std::to_string(a.effective_head_size()), std::to_string(model::mlp_hidden_size(a)),
                   units::format_count(c.params, 4),
                   active ? units::format_count(c.active_params, 4) + " (" + percent(c.ratio) + ")" : percent(c.ratio),
                   aspect(a)});
    }
    out += alt.render();
  }
  if (!d.moe_departures.empty()) {
    out += "\nDepartures from ST-MoE's recommendations\n";
    for (const auto& w : d.moe_departures) out += "  " + w + "\n";
  }
  return out;
}

}  // namespace isoflop::doc
