// Rendering ranked layouts.
#include "app/layout_json.hpp"

#include <cstdio>

#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}
}  // namespace

report::Json layout_json(const parallel::RankedLayout& r) {
  const auto& l = r.layout;
  const auto& m = r.memory;
  const auto& t = r.time;
  const auto& b = t.breakdown;
  return {{"tp", l.tp},
          {"pp", l.pp},
          {"dp", l.dp},
          {"ep", l.ep},
          {"vpp", l.vpp},
          {"micro_batch", l.micro_batch},
          {"zero_stage", l.zero_stage},
          {"recompute", std::string(parallel::kRecomputeNames.name(l.recompute))},
          {"sequence_parallel", l.sequence_parallel},
          {"memory_gib", m.total_bytes() / kGiB},
          {"memory_breakdown",
           {{"weights_gib", m.weights_bytes / kGiB},
            {"gradients_gib", m.gradients_bytes / kGiB},
            {"optimizer_gib", m.optimizer_bytes / kGiB},
            {"activations_gib", m.activations_bytes / kGiB},
            {"embeddings_logits_gib", m.embeddings_logits_bytes / kGiB}}},
          {"step_time_s", t.step_time_s},
          {"step_breakdown",
           {{"compute_s", b.compute_s},
            {"recompute_s", b.recompute_s},
            {"tp_comm_s", b.tp_comm_s},
            {"pp_comm_s", b.pp_comm_s},
            {"bubble_s", b.bubble_s},
            {"dp_comm_s", b.dp_comm_s},
            {"moe_comm_s", b.moe_comm_s},
            {"optimizer_s", b.optimizer_s}}},
          {"tokens_per_s", t.tokens_per_s},
          {"model_tflops_per_gpu", t.model_tflops_per_gpu},
          {"hardware_tflops_per_gpu", t.hardware_tflops_per_gpu},
          {"mfu", t.mfu},
          {"hfu", t.hfu}};
}

report::Json search_json(const parallel::SearchResult& r) {
  report::Json layouts = report::Json::array();
  for (const auto& l : r.layouts) layouts.push_back(layout_json(l));
  report::Json pruned = report::Json::array();
  for (const auto& p : r.pruned) pruned.push_back({{"tp", p.tp}, {"pp", p.pp}, {"reason", p.reason}});
  return {{"layouts", layouts},
          {"pruned", pruned},
          {"evaluated", r.evaluated},
          {"min_memory_gib", r.min_memory_bytes / kGiB},
          {"usable_memory_gib", r.usable_memory_bytes / kGiB}};
}

std::string layouts_table(const parallel::SearchResult& r) {
  report::TextTable table({"#", "TP", "PP", "DP", "EP", "VPP", "MB", "ZeRO", "recompute", "SP", "GiB/GPU", "step",
                           "tokens/s", "TFLOP/s/GPU", "MFU"});
  int rank = 0;
  for (const auto& x : r.layouts) {
    const auto& l = x.layout;
    table.add_row({std::to_string(++rank), std::to_string(l.tp), std::to_string(l.pp), std::to_string(l.dp),
                   std::to_string(l.ep), std::to_string(l.vpp), std::to_string(l.micro_batch),
                   std::to_string(l.zero_stage), std::string(parallel::kRecomputeNames.name(l.recompute)),
                   l.sequence_parallel ? "on" : "off", fixed(x.memory.total_bytes() / kGiB, 1),
                   units::format_duration(x.time.step_time_s), units::format_count(x.time.tokens_per_s),
                   fixed(x.time.model_tflops_per_gpu, 1), fixed(100 * x.time.mfu, 1) + "%"});
  }
  std::string out = table.render();
  if (!r.layouts.empty()) {
    const auto& best = r.layouts.front();
    const auto& m = best.memory;
    const auto& b = best.time.breakdown;
    out += "\nBest layout, memory per GPU:\n";
    out += report::render_key_values({{"weights", fixed(m.weights_bytes / kGiB, 2) + " GiB"},
                                      {"gradients", fixed(m.gradients_bytes / kGiB, 2) + " GiB"},
                                      {"optimizer states", fixed(m.optimizer_bytes / kGiB, 2) + " GiB"},
                                      {"activations", fixed(m.activations_bytes / kGiB, 2) + " GiB"},
                                      {"embeddings/logits", fixed(m.embeddings_logits_bytes / kGiB, 2) + " GiB"},
                                      {"total", fixed(m.total_bytes() / kGiB, 2) + " GiB of " +
                                                    fixed(r.usable_memory_bytes / kGiB, 1) + " usable"}});
    out += "\nBest layout, step time " + units::format_duration(best.time.step_time_s) + ":\n";
    auto share = [&](double s) {
      return units::format_duration(s) + " (" + fixed(100 * s / best.time.step_time_s, 1) + "%)";
    };
    out += report::render_key_values({{"compute", share(b.compute_s)},
                                      {"recompute", share(b.recompute_s)},
                                      {"tensor-parallel comm", share(b.tp_comm_s)},
                                      {"pipeline comm", share(b.pp_comm_s)},
                                      {"pipeline bubble", share(b.bubble_s)},
                                      {"data-parallel comm", share(b.dp_comm_s)},
                                      {"expert all-to-all", share(b.moe_comm_s)},
                                      {"optimizer step", share(b.optimizer_s)}});
  }
  if (!r.pruned.empty()) {
    out += "\nPruned TP x PP families:\n";
    size_t shown = 0;
    for (const auto& p : r.pruned) {
      if (++shown > 8) {
        out += "  ... and " + std::to_string(r.pruned.size() - 8) + " more (see -o json)\n";
        break;
      }
      out += "  TP " + std::to_string(p.tp) + " x PP " + std::to_string(p.pp) + ": " + p.reason + "\n";
    }
  }
  out += "\n" + std::to_string(r.evaluated) + " layouts evaluated.\n";
  return out;
}

}  // namespace isoflop::app
