// The layout document's human page, and the layouts table the plan's page shares.
#include <cstdio>
#include <string>
#include <vector>

#include "core/suggest.hpp"
#include "doc/layout_document.hpp"
#include "model/params.hpp"
#include "plan/plan.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {


std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string best_breakdowns(const parallel::RankedLayout& best, double usable_bytes) {
  const auto& m = best.memory;
  const auto& b = best.time.breakdown;
  auto gib = [](double bytes) { return fixed(bytes / kGiB, 2) + " GiB"; };
  std::string out = "\nBest layout, memory per GPU:\n";
  out += report::render_key_values({{"weights", gib(m.weights_bytes)},
                                    {"gradients", gib(m.gradients_bytes)},
                                    {"optimizer states", gib(m.optimizer_bytes)},
                                    {"activations", gib(m.activations_bytes)},
                                    {"embeddings/logits", gib(m.embeddings_logits_bytes)},
                                    {"total", gib(m.total_bytes()) + " of " + fixed(usable_bytes / kGiB, 1) + " usable"}});
  out += "\nBest layout, step time " + units::format_duration(best.time.step_time_s) + ":\n";
  auto share = [&](double s) {
    return units::format_duration(s) + " (" + fixed(100 * s / best.time.step_time_s, 1) + "%)";
  };
  const auto& set = best.time.settings;
  auto on = [](bool v) { return v ? "on" : "off"; };
  std::vector<std::pair<std::string, std::string>> parts = {{"compute", share(b.compute_s)},
                                                            {"recompute", share(b.recompute_s)},
                                                            {"tensor-parallel comm", share(b.tp_comm_s)},
                                                            {"context-parallel comm", share(b.cp_comm_s)},
                                                            {"pipeline comm", share(b.pp_comm_s)},
                                                            {"logits and loss", share(b.logits_s)},
                                                            {"embedding", share(b.embedding_s)},
                                                            {"pipeline bubble", share(b.bubble_s)},
                                                            {"data-parallel comm", share(b.dp_comm_s)},
                                                            {"tied-embedding sync", share(b.embedding_sync_s)},
                                                            {"expert all-to-all", share(b.moe_comm_s)},
                                                            {"optimizer step", share(b.optimizer_s)}};
  // Only an accelerator whose calibration measured it (validate report --save-calibration) has a per-layer overhead.
  if (b.layer_overhead_s > 0) parts.emplace_back("per-layer overhead", share(b.layer_overhead_s));
  parts.insert(parts.end(),
               {{"hidden by overlap", "TP " + units::format_duration(b.tp_hidden_s) + ", CP " +
                                          units::format_duration(b.cp_hidden_s) + ", DP " +
                                          units::format_duration(b.dp_hidden_s)},
                {"settings", std::string("grad reduce ") + on(set.overlap_grad_reduce) + ", param gather " +
                                 on(set.overlap_param_gather) + " (overlap), TP overlap " + on(set.tp_comm_overlap) +
                                 ", " + fixed(set.grad_reduce_bytes, 0) + "-byte gradients"}});
  out += report::render_key_values(parts);
  return out;
}

}  // namespace

std::string render_layouts_table(const parallel::SearchResult& r, bool calibrated, bool fp8) {
  std::vector<std::string> headings = {"#"};
  for (const auto& d : parallel::dimensions()) headings.emplace_back(d.label);
  for (const char* h : {"GiB/GPU", calibrated ? "step" : "step (uncalibrated)", "tokens/s", "TFLOP/s/GPU", "MFU"})
    headings.emplace_back(h);
  report::TextTable table(headings);
  int rank = 0;
  for (const auto& x : r.layouts) {
    std::vector<std::string> row = {std::to_string(++rank)};
    for (const auto& d : parallel::dimensions()) row.push_back(parallel::format_value(d, d.get(x.layout)));
    row.push_back(fixed(x.memory.total_bytes() / kGiB, 1));
    row.push_back(units::format_duration(x.time.step_time_s));
    row.push_back(units::format_count(x.time.tokens_per_s));
    row.push_back(fixed(x.time.model_tflops_per_gpu, 1));
    row.push_back(fixed(100 * x.time.mfu, 1) + "%");
    table.add_row(row);
  }
  std::string out = r.layouts.empty() ? std::string() : table.render();
  // A paper's TFLOP/s may count the recomputed forward (Narayanan et al. 2021's 163 for MT-NLG's layout): say which
  // these are, and the hardware rate where recompute makes it another.
  if (!r.layouts.empty()) {
    const auto& best = r.layouts.front().time;
    out += "TFLOP/s/GPU and MFU count model FLOPs (Korthikanti et al. 2022 eq. 7, without recompute)";
    if (best.hardware_tflops_per_gpu > best.model_tflops_per_gpu * (1 + 1e-9))
      out += "; with its recompute the best runs " + fixed(best.hardware_tflops_per_gpu, 1) +
             " hardware TFLOP/s/GPU (HFU " + fixed(100 * best.hfu, 1) + "%)";
    if (fp8) out += "; MFU is of the 16-bit peak, and fp8 GEMMs run at up to twice it";
    out += ".\n";
  }
  if (!r.layouts.empty() && !calibrated)
    out += "Uncalibrated: no measured runs on this accelerator; its efficiency constants are borrowed (see the "
           "calibration source, or fit your own with isoflop calibrate).\n";
  if (!r.layouts.empty()) out += best_breakdowns(r.layouts.front(), r.usable_memory_bytes);
  if (r.infeasible) out += "Nothing fits: " + parallel::describe(*r.infeasible) + "\n";
  if (!r.pruned.empty()) {
    out += "\nPruned TP x PP (x CP) families, with the rule that pruned them:\n";
    size_t shown = 0;
    for (const auto& p : r.pruned) {
      if (++shown > 8) {
        out += "  ... and " + std::to_string(r.pruned.size() - 8) + " more (see -o json)\n";
        break;
      }
      // A rule pruned a layout that would fit; what the trainer runs in the family is too big (else the family
      // would rank): say by how much, so the rule does not read as the only obstacle.
      const std::string runs_need =
          p.rule != "memory" && p.min_memory_bytes > r.usable_memory_bytes
              ? "; the layouts allowed need at least " + fixed(p.min_memory_bytes / kGiB, 1) + " GiB/GPU"
              : std::string();
      out += "  TP " + std::to_string(p.tp) + " x PP " + std::to_string(p.pp) +
             (p.cp > 1 ? " x CP " + std::to_string(p.cp) : std::string()) + ": " + p.reason + runs_need + " [" +
             p.rule + "]\n";
    }
  }
  out += "\n" + std::to_string(r.evaluated) + " layouts evaluated.\n";
  return out;
}

namespace {

// A catalog model by its name; the model a plan shaped, which has none, by its size ("a 69.9B model").
std::string model_title(const model::Architecture& a) {
  if (!a.name.empty() && a.name != plan::kPlannedModelName) return a.name;
  return "a " + units::format_count(model::count_params(a).total()) + " model";
}

}  // namespace

std::string job_kernels_text(const parallel::JobSpec& job) {
  std::vector<std::string> parts;
  if (job.precision != parallel::MatmulPrecision::kBf16)
    parts.push_back(std::string(parallel::kMatmulPrecisionNames.name(job.precision)) + " GEMMs");
  if (job.attention != parallel::AttentionKernel::kFlash)
    parts.push_back(std::string(parallel::kAttentionKernelNames.name(job.attention)) + " attention");
  if (job.dropout) parts.emplace_back("dropout");
  return join(parts);
}

std::string render_layout_page(const LayoutDocument& d) {
  const auto& s = d.sections;
  std::string out = "Layouts for " + model_title(s.job.architecture) + " on " + std::to_string(s.cluster.gpus) + " x " +
                    s.cluster.accelerator.name + " (node " + s.cluster.node_name + ", " +
                    std::to_string(s.cluster.gpus_per_node) + " GPUs per node), global batch " +
                    std::to_string(s.job.global_batch) + " x " + std::to_string(s.job.seq) + " tokens";
  if (const std::string kernels = job_kernels_text(s.job); !kernels.empty()) out += " (" + kernels + ")";
  if (d.inputs.from) out += ", from " + *d.inputs.from;
  const auto& trainer = s.options.trainer;
  if (trainer.loaded())
    out += "; trainer " + trainer.name + " (rules of " + trainer.version +
           (trainer.written_as.empty() ? "" : ", as its " + trainer.written_as + " can say them") + ")";
  out += "\n";
  std::string pins;
  for (const auto& dim : parallel::dimensions())
    if (const auto v = dim.pinned(s.options.pins))
      pins += (pins.empty() ? "" : ", ") + std::string(dim.label) + " " + parallel::format_value(dim, *v);
  if (!pins.empty()) out += "Pinned: " + pins + "\n";
  return out + "\n" +
         render_layouts_table(s.result, s.cluster.accelerator.calibrated,
                              s.job.precision == parallel::MatmulPrecision::kFp8);
}

}  // namespace isoflop::doc
