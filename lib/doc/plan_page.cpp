// The plan's human page and its IsoFLOP figure.
#include <algorithm>
#include <cmath>

#include "core/suggest.hpp"
#include "doc/cost_table.hpp"
#include "doc/layout_document.hpp"
#include "doc/plan_document.hpp"
#include "model/params.hpp"
#include "report/svg_plot.hpp"
#include "report/text_table.hpp"
#include "scaling/loss_law.hpp"
#include "units/format.hpp"
#include "units/si.hpp"

namespace isoflop::doc {
namespace {

std::string budget_section(const plan::PlanResult& p) {
  std::string compute = units::format_scientific(p.flops) + " FLOPs (" +
                        std::string(plan::kFlopsConventionNames.name(p.flops_convention)) + ")";
  // A FLOPs budget is the law's C = 6·N·D (the allocation's); the run counts the shaped model's own FLOPs.
  if (p.budget.flops) compute += "; budget " + units::format_scientific(*p.budget.flops) + " FLOPs = the law's 6·N·D";
  std::vector<std::pair<std::string, std::string>> kv = {{"compute", compute}};
  if (p.feasible()) {
    const bool fp8 = p.job.precision == parallel::MatmulPrecision::kFp8;
    kv.push_back(
        {"utilisation",
         units::format_significant(100 * p.mfu) + "% MFU" +
             (fp8 ? " of the 16-bit peak (fp8 GEMMs run at up to twice it)" : "") +
             (p.cluster.accelerator.calibrated ? ""
                                               : " (uncalibrated: no measured runs on " + p.cluster.accelerator.name +
                                                     "; its efficiency constants are borrowed)") +
             " (best layout, " + std::to_string(p.iterations) + (p.iterations == 1 ? " iteration" : " iterations") +
             "; floor " + units::format_significant(100 * p.min_mfu) + "%)"});
    kv.push_back({"time", units::format_significant(p.time_s / units::kSecondsPerDay, 4) +
                              " days = " + units::format_count(p.tokens) + " tokens / " +
                              units::format_count(p.tokens_per_s) + " tokens/s"});
  }
  kv.push_back({"global batch", units::format_count(p.batch.tokens) + " tokens: " + p.batch.note + " (ceiling " +
                                    units::format_count(p.batch.ceiling_tokens) + ")"});
  if (p.problem) kv.push_back({"refused", p.problem->reason});
  return "Budget\n" + report::render_key_values(kv);
}

std::string allocation_section(const plan::PlanResult& p) {
  const scaling::Allocation& a = p.allocation;
  // The law's compute, C = 6·N·D, is not the run's (the layout's model FLOPs add attention and logits), and a
  // time-like budget's D is what the layout runs in the time only within the iteration's tolerance: each says so.
  std::string tokens = units::format_count(a.tokens);
  if (p.feasible() && !p.budget.flops && std::fabs(p.tokens / a.tokens - 1) > 5e-4)
    tokens += " (the run trains " + units::format_count(p.tokens) + " in the time, within the iteration's tolerance)";
  std::vector<std::pair<std::string, std::string>> kv = {
      {"parameters", units::format_count(a.params)},
      {"tokens", tokens},
      {"tokens per parameter", units::format_significant(a.tokens_per_param)},
      {"compute", units::format_scientific(a.flops) +
                      (p.job.architecture.moe.enabled() ? " FLOPs = 6·N_active·D (an MoE's compute follows its active "
                                                          "parameters)"
                                                        : " FLOPs = 6·N·D, the law's convention") +
                      (p.feasible() && p.flops_convention != plan::FlopsConvention::kSixND
                           ? "; the run's " + units::format_scientific(p.flops) +
                                 " are the layout's model FLOPs, attention and logits included"
                           : "")}};
  if (a.loss) kv.push_back({"predicted loss", units::format_significant(*a.loss, 4)});
  std::string out = "\nAllocation (" + a.law + ")\n" + report::render_key_values(kv);
  out += "\nBand across laws\n";
  report::TextTable t({"law", "parameters", "tokens", "D/N", "loss"});
  for (const auto& l : p.band.laws)
    t.add_row({l.law, units::format_count(l.params), units::format_count(l.tokens),
               units::format_significant(l.tokens_per_param), l.loss ? units::format_significant(*l.loss, 4) : "-"});
  out += t.render();
  for (const auto& s : p.band.skipped) out += "  skipped " + s.law + ": " + s.reason + "\n";
  for (const auto& n : p.band.notes) out += "  note: " + n + "\n";
  return out;
}

std::string architecture_section(const plan::PlanResult& p) {
  const model::Architecture& arch = p.job.architecture;
  const double params = model::count_params(arch).total();
  return "\nArchitecture\n" +
         report::render_key_values(
             {{"layers x d_model", std::to_string(arch.layers) + " x " + std::to_string(arch.d_model) +
                                       (p.depth_note.empty() ? "" : " (" + p.depth_note + ")")},
              {"heads x head size", std::to_string(arch.heads) + " x " + std::to_string(arch.effective_head_size())},
              {"ffn", std::to_string(model::mlp_hidden_size(arch))},
              {"positions", p.positions_note.empty()
                                ? std::string(model::kPositionalEncodingNames.name(arch.positional))
                                : p.positions_note},
              {"parameters (exact)", units::format_count(params, 4) + " (" +
                                         units::format_significant(100 * p.params_ratio_to_target(), 4) +
                                         "% of target)"},
              {"global batch", std::to_string(p.job.global_batch) + " x " + std::to_string(p.job.seq) + " tokens" +
                                   (job_kernels_text(p.job).empty() ? "" : " (" + job_kernels_text(p.job) + ")")}});
}

}  // namespace

std::string render_plan_page(const plan::PlanResult& p, const std::string& cluster_note) {
  std::string out = "isoflop plan: " + std::to_string(p.cluster.gpus) + " x " + p.cluster.accelerator.name +
                    (cluster_note.empty() ? "" : " (" + cluster_note + ")") + "\n\n";
  out += budget_section(p) + allocation_section(p) + architecture_section(p);
  out += "\nLayouts\n" + render_layouts_table(p.layouts, p.cluster.accelerator.calibrated,
                                              p.job.precision == parallel::MatmulPrecision::kFp8);
  if (!p.feasible()) return out;  // the reason and the changes that would fit go to stderr
  out += "\nCost\n" + report::render_key_values(cost_key_values(*p.cost));
  out += "\n" + energy_methods_section(*p.cost);
  out += "\n" + whatif_section(*p.cost);
  return out;
}

std::string render_isoflop_figure(const plan::PlanResult& p, const std::vector<catalog::LawSpec>& laws) {
  const std::string& law = p.allocation.law;
  report::PlotSpec spec;
  spec.title = "IsoFLOP curve at C = " + units::format_scientific(p.flops) + " FLOPs";
  spec.x = {"parameters N", report::AxisScale::kLog, report::TickFormat::kCount, std::nullopt, std::nullopt};
  spec.y = {"predicted loss (nats/token)", report::AxisScale::kLinear, report::TickFormat::kPlain, std::nullopt,
            std::nullopt};
  std::vector<std::string> no_loss, other_scale;
  for (const auto& l : laws) {
    if (!scaling::has_loss(l)) {
      no_loss.push_back(l.name);
      continue;
    }
    // Kaplan's loss is on another scale (non-embedding parameters, another tokenizer): not comparable here.
    if (l.kind() == catalog::LawKind::kKaplan) {
      other_scale.push_back(l.name);
      continue;
    }
    report::Series s;
    s.name = l.name;
    for (int i = 0; i <= 80; ++i) {
      const double n = p.allocation.params * std::pow(10.0, -1.0 + 2.0 * i / 80);
      s.x.push_back(n);
      s.y.push_back(scaling::predicted_loss(l, n, p.flops / (6 * n)));
    }
    if (l.name == law) s.line_width_px = 2.6;
    spec.series.push_back(std::move(s));
  }
  for (const auto& a : p.band.laws)
    if (a.loss && a.law != law && std::find(other_scale.begin(), other_scale.end(), a.law) == other_scale.end())
      spec.marked.push_back({a.params, *a.loss, "each law's minimum", "#555555", report::MarkerShape::kCircle, 3.5,
                             true, false});
  if (p.allocation.loss)
    spec.marked.push_back({p.allocation.params, *p.allocation.loss,
                           "optimum (" + law + "): N = " + units::format_count(p.allocation.params), "#d62728",
                           report::MarkerShape::kStar, 7, true, true});
  if (!no_loss.empty()) spec.notes.push_back("not drawn, no loss (allocation only): " + join(no_loss, ", "));
  if (!other_scale.empty())
    spec.notes.push_back("not drawn, loss on another scale (non-embedding N, other data): " + join(other_scale, ", "));
  return report::render_svg(spec);
}

}  // namespace isoflop::doc
