// The trainers' runnability rules (data/trainers.yaml, lib/parallel/trainer_rules) applied to what emit writes and
// to what --check reads: the same rules the layout search applies, one path for both.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "emit/emit.hpp"
#include "emit/launch_spec.hpp"
#include "emit/targets.hpp"
#include "parallel/layout_request.hpp"
#include "parallel/trainer_rules.hpp"
#include "units/format.hpp"
#include "units/si.hpp"

namespace isoflop::emit {
namespace {

std::string in_words(const parallel::RuleViolation& v) { return "rule '" + v.rule + "': " + v.reason; }

std::string layout_words(const parallel::Layout& l) {
  char line[160];
  std::snprintf(line, sizeof line, "TP %d, PP %d, VPP %d, CP %d, DP %d, EP %d, ZeRO-%d, micro-batch %d", l.tp, l.pp,
                l.vpp, l.cp, l.dp, l.ep, l.zero_stage, l.micro_batch);
  return line;
}

}  // namespace

std::vector<std::string> rule_problems(const catalog::TrainerRules& rules, LayoutFacts f) {
  // Facts the file does not state take values every rule accepts.
  auto& a = f.job.architecture;
  if (a.heads <= 0) a.heads = f.layout.tp;
  // Products of degrees read from a file are clamped to an int (a larger one fails the GPU count rule anyway).
  if (a.layers <= 0) a.layers = clamp_to_int(static_cast<long long>(f.layout.pp) * f.layout.vpp);
  if (f.layout.ep > 1 && a.moe.experts <= 0) a.moe.experts = f.layout.ep;
  if (f.job.seq <= 0) f.job.seq = 2LL * f.layout.cp * std::max(1, rules.context_sequence_multiple);
  if (f.cluster.gpus <= 0) f.cluster.gpus = clamp_to_int(f.layout.gpus());
  if (f.cluster.gpus_per_node <= 0) f.cluster.gpus_per_node = std::max(1, f.layout.tp);
  if (const auto v = parallel::runnability_violation(rules, f.layout, f.job, f.cluster)) return {in_words(*v)};
  return {};
}

LaunchSpec under_rules(const LaunchSpec& s, const catalog::TrainerRules& target_rules,
                       const catalog::TrainerRules& own) {
  const catalog::TrainerRules target = parallel::as_written(target_rules);
  parallel::SearchOptions options = s.search;
  options.trainer = target;
  // A gradient precision the plan chose that the file written for the target cannot state: the target reduces in
  // its own, as for a plan made for another trainer, and the memory below decides whether the layout still fits.
  parallel::drop_unstatable_grad_reduce(options);
  // Every spec returned carries the time options resolved against the target's defaults (out.search.time): the
  // overlaps and precision its file then states are the ones its step time was predicted with.
  const parallel::TimeOptions resolved = parallel::with_trainer_defaults(options.time, target);
  parallel::JobSpec job = s.job;
  job.trainer = parallel::kTrainerNames.parse(target.name, "trainer");
  parallel::apply_gradient_precision(job, options);
  std::optional<parallel::RuleViolation> v = parallel::runnability_violation(target, s.layout, s.job, s.cluster);
  // The same gradient bytes, or a plan without its accelerator's memory (nothing to hold the layout to): as planned.
  if (!v && (job.optimizer == s.job.optimizer || !(s.cluster.accelerator.memory_bytes > 0))) {
    LaunchSpec out = s;
    out.job.trainer = job.trainer;  // the one that runs it (slurm's Megatron-LM for an FSDP plan)
    out.search.time = resolved;
    if (const auto recounted = predict(out))
      restate_prediction(out, s, *recounted);  // the target's settings: its overlaps' step time
    return out;
  }
  if (!v) {
    // Another trainer keeps gradients in another precision: the plan's layout with its memory, or, where it no
    // longer fits, the target's best.
    const double used = parallel::estimate_memory(job, s.layout, s.search.memory).total_bytes();
    const double usable = parallel::usable_memory_bytes(s.cluster.accelerator, s.search.memory);
    if (used <= usable) {
      LaunchSpec out = s;
      out.job = job;
      out.search.time = resolved;
      out.predicted.memory_gib = used / kGiB;
      if (const auto recounted = predict(out))
        restate_prediction(out, s, *recounted);  // its gradients' memory, the target's settings
      return out;
    }
    char words[160];
    std::snprintf(words, sizeof words, "with its gradients the layout needs %.1f GiB/GPU > %.1f GiB usable",
                  used / kGiB, usable / kGiB);
    v = parallel::RuleViolation{"memory", words};
  }
  // The trainer refuses it, or it runs it but the file written for it cannot say it.
  const bool trainer_refuses =
      v->rule == "memory" || parallel::runnability_violation(target_rules, s.layout, s.job, s.cluster);
  // After with_layout_request the layout is the one the options gave, not the plan's.
  const std::string whose = s.relayout.empty() ? "the plan's" : "the options'";
  const std::string refused =
      (trainer_refuses ? target.name + " refuses " + whose + " layout (" + layout_words(s.layout) + ")"
                       : whose + " layout (" + layout_words(s.layout) + ") cannot be written for " + target.name) +
      ": " + in_words(*v) + "; re-plan for trainer " + target.name;
  // A layout its own trainer refuses was edited by hand: refuse it rather than guess what was meant. One its own
  // trainer runs but the file written cannot say (`target` narrowed to what the file spells) is re-ranked.
  if (parallel::runnability_violation(own, s.layout, s.job, s.cluster)) throw FieldError("plan layout", refused);
  // What `layout --from PLAN` ranks first under the target's rules: the plan's model, batch and cluster, its pins.
  // The plan's pins under the target's rules may be refused outright (a pinned VPP for a trainer without
  // interleaving): that is the target refusing the plan too.
  parallel::SearchResult found;
  try {
    found = parallel::search_layouts(job, s.cluster, options);
  } catch (const InputError& e) {
    throw FieldError("plan layout", refused + " (under its rules: " + e.what() + ")");
  }
  if (!found.feasible() || found.layouts.empty())
    throw FieldError("plan layout", refused + " (under its rules: " +
                                        (found.infeasible ? found.infeasible->reason : "no layout") + ")");
  const parallel::RankedLayout& best = found.layouts.front();
  LaunchSpec out = s;
  out.job = job;
  out.search.time = resolved;
  out.layout = best.layout;
  out.grad_accum = s.global_batch / (static_cast<long long>(best.layout.micro_batch) * best.layout.dp);
  restate_prediction(out, s, prediction_of(best));
  // After a layout the options given chose (with_layout_request), both are said.
  out.relayout =
      (s.relayout.empty() ? std::string() : s.relayout + "; then ") + "layout: " +
      (trainer_refuses ? target.name + " refuses " + whose : whose + " cannot be written for " + target.name) + " (" +
      in_words(*v) + "); runs " + target.name + "'s best on the same GPUs instead: " + layout_words(best.layout);
  return out;
}

LaunchSpec with_layout_request(const LaunchSpec& s, const parallel::LayoutRequest& request,
                               const catalog::Catalog& catalog, double min_mfu) {
  parallel::SearchOptions options = s.search;
  parallel::apply_layout_request(request, options);
  parallel::resolve_trainer(catalog, options);
  // As `layout --from PLAN` ranks it: a plan's gradient precision that the trainer's file cannot state is the
  // trainer's own; one asked for here is the user's, and refused by the search if it cannot be stated.
  if (!request.grad_reduce) parallel::drop_unstatable_grad_reduce(options);
  parallel::JobSpec job = s.job;
  job.trainer = parallel::kTrainerNames.parse(options.trainer.name, "trainer");
  parallel::apply_gradient_precision(job, options);
  const parallel::SearchResult found = parallel::search_layouts(job, s.cluster, options);
  if (!found.feasible() || found.layouts.empty())
    throw InfeasibleError("no layout of the plan's model on its " + std::to_string(s.gpus) +
                          " GPUs runs with the options given: " +
                          (found.infeasible ? found.infeasible->reason : std::string("none fits")));
  const parallel::RankedLayout& best = found.layouts.front();
  LaunchSpec out = s;
  out.job = job;
  out.search = options;
  out.layout = best.layout;
  out.grad_accum = s.global_batch / (static_cast<long long>(best.layout.micro_batch) * best.layout.dp);
  restate_prediction(out, s, prediction_of(best));
  const auto percent = [](double f) { return units::format_significant(100 * f, 3) + " %"; };
  if (out.predicted.mfu < min_mfu)
    throw InfeasibleError("the layout the options give first (" + layout_words(best.layout) + ") runs at MFU " +
                          percent(out.predicted.mfu) + ", under the plan's floor of " + percent(min_mfu) +
                          ", so no launch file is written; layout --from PLAN with the same options ranks the others");
  if (!(best.layout == s.layout)) {
    char change[160];
    std::snprintf(change, sizeof change, "; step %.3f s, was %.3f s; run %.2f days, was %.2f",
                  out.predicted.step_time_s, s.predicted.step_time_s, out.predicted.run_time_s / units::kSecondsPerDay,
                  s.predicted.run_time_s / units::kSecondsPerDay);
    out.relayout = "layout: the options given rank another first (as layout --from PLAN with them does): " +
                   layout_words(best.layout) + ", instead of the plan's " + layout_words(s.layout) + change;
  }
  return out;
}

}  // namespace isoflop::emit
