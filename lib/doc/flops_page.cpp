// The flops document as a page for people.
#include "doc/arch_document.hpp"
#include "doc/flops_document.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {

std::string render_flops_page(const FlopsDocument& d) {
  const model::FlopsCount& f = d.flops;
  const std::string recompute(model::kRecomputeNames.name(f.recompute));
  std::vector<std::pair<std::string, std::string>> kv;
  if (d.architecture && !d.architecture->name.empty()) kv.push_back({"model", d.architecture->name});
  kv.push_back({"convention", std::string(model::kFlopsConventionNames.name(f.convention)) + " (" + f.note + ")"});
  kv.push_back({"parameters", units::format_count(f.params, 4) + " (" +
                                  std::string(model::kParamsKindNames.name(f.params_kind)) + ")"});
  kv.push_back({"tokens", units::format_count(f.tokens, 4)});
  kv.push_back({"FLOPs", units::format_scientific(f.hardware_flops, 5) +
                             (f.hardware_flops != f.model_flops ? " (hardware, recompute " + recompute + "; model " +
                                                                      units::format_scientific(f.model_flops, 5) + ")"
                                                                : "")});
  kv.push_back({"FLOPs per token", units::format_scientific(f.flops_per_token(), 5)});
  // Hoffmann et al. 2022 Table A4 compares its count with 6·N·D leaving out the embeddings and the final logits
  // (1.03 ... 0.99): both ratios, so that the table's figure can be read off.
  if (f.convention == model::FlopsConvention::kChinchilla && f.params > 0 && f.tokens > 0) {
    double without = f.model_flops;
    for (const auto& p : f.parts)
      if (p.name == "embeddings" || p.name == "final_logits") without -= p.flops;
    const double six_nd = 6 * f.params * f.tokens;
    kv.push_back({"FLOPs / 6·N·D",
                  units::format_significant(f.model_flops / six_nd, 4) + "; without embeddings and logits " +
                      units::format_significant(without / six_nd, 4) + " (as Hoffmann et al. 2022 Table A4 counts)"});
  }
  std::string out = report::render_key_values(kv, 0);
  if (d.architecture) out += render_params_table(*d.architecture, false);
  if (!f.parts.empty()) {
    out += "\nFLOPs by part\n";
    report::TextTable t({"part", "FLOPs"});
    for (const auto& p : f.parts) t.add_row({p.name, units::format_scientific(p.flops, 4)});
    if (f.convention == model::FlopsConvention::kMegatron) {
      t.add_row({"model_flops", units::format_scientific(f.model_flops, 4)});
      t.add_row({"hardware_flops", units::format_scientific(f.hardware_flops, 4)});
    }
    out += t.render();
  }
  return out;
}

}  // namespace isoflop::doc
