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
