// Systems rules: the memory left on the most loaded GPU, the predicted MFU of the proposal's layout, and
// whether the named trainer runs that layout (lib/parallel's memory model, step-time model and trainer rules).
#include "check/memory_fixes.hpp"
#include "check/rules.hpp"
#include "core/bytes.hpp"
#include "core/suggest.hpp"
#include "parallel/search.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::check {
namespace {

// Whether the proposal pins the whole layout (TP, PP and DP), so "this layout" rather than "no layout".
bool pinned(const Facts& f) { return f.proposed_layout.has_value(); }

// A layout as the pins of emit and layout, every knob the search would otherwise choose again (a VPP left open
// is the search's, which may be the layout that failed): "--tp 8 --pp 4 --cp 1 --dp 32 --ep 1 --vpp 1 ...".
std::string layout_pins(const parallel::Layout& l) {
  std::string out = "--tp " + std::to_string(l.tp) + " --pp " + std::to_string(l.pp) + " --cp " + std::to_string(l.cp) +
                    " --dp " + std::to_string(l.dp) + " --ep " + std::to_string(l.ep) + " --vpp " +
                    std::to_string(l.vpp);
  if (l.first_stage_layers > 0) out += " --first-stage-layers " + std::to_string(l.first_stage_layers);
  if (l.last_stage_layers > 0) out += " --last-stage-layers " + std::to_string(l.last_stage_layers);
  out += " --micro-batch " + std::to_string(l.micro_batch) + " --zero " + std::to_string(l.zero_stage) +
         " --recompute " + std::string(model::kRecomputeNames.name(l.recompute));
  if (l.tp > 1) out += std::string(" --sequence-parallel ") + (l.sequence_parallel ? "on" : "off");
  return out;
}

// Usable memory (the device less the planner's headroom) less the per-GPU memory the model predicts (Korthikanti et al.
// 2022; ZeRO) for the layout. The fixes are changes to the proposal that were planned again and pass this rule.
Finding memory_headroom(const RuleSetting& s, const Facts& f) {
  const auto min_gib = s.number("min");
  const auto use = memory_use(f);
  if (!use) return {true, false, std::nullopt, min_gib, "no valid layout: " + f.plan_error, ""};
  // Headroom is counted from what the planner lets a layout use, so that 0 is exactly where it stops fitting.
  const std::string per_gpu = fmt(use->used_bytes / kGiB) + " GiB of the " + fmt(use->usable_bytes / kGiB) +
                              " usable per " + f.cluster->accelerator.name + " (its " + fmt(use->device_bytes / kGiB) +
                              " GiB less " + fmt(100 * (1 - use->usable_bytes / use->device_bytes)) + " % kept free)";
  Finding r = bounded(use->headroom_gib(), s, "memory headroom", "GiB");
  if (use->fits) {
    r.reason += ": it uses " + per_gpu;
  } else if (f.plan->layouts.evaluated == 0) {  // no layout is valid, so none has a memory to judge
    r.holds = false;
    r.threshold = min_gib;
    r.value = std::nullopt;
    r.reason = f.plan->layouts.infeasible->reason;
  } else {
    r.holds = false;
    r.threshold = min_gib;
    const std::string& why = f.plan->layouts.infeasible->reason;
    const size_t rejected = why.find("; layouts that fit are rejected");
    r.reason = (pinned(f) ? "this layout does not fit: it needs " : "no layout fits: the smallest needs ") + per_gpu +
               (rejected == std::string::npos ? "" : why.substr(rejected));
  }
  if (r.holds) return r;
  // A plan document is judged as it is, so no field of it is changed: where its layouts were valid but none fit
  // the memory, its own search's fewest GPUs at which one fits (checked by that search) is what planning it again
  // takes, spelled as plan's option.
  if (f.proposal->plan && !use->fits && f.plan->layouts.infeasible && f.plan->layouts.evaluated > 0) {
    for (const parallel::SuggestedChange& c : f.plan->layouts.infeasible->changes)
      if (c.field == "gpus" && c.number) {
        r.fix = "plan again with --gpus " + std::to_string(*c.number);
        return r;
      }
  }
  // A plan whose best layout fits with less headroom than the policy asks: the first of its own ranked layouts
  // that keeps enough free, as the pins that launch it from the same plan (emit and layout take them).
  if (f.proposal->plan && use->fits) {
    const auto& ranked = f.plan->layouts.layouts;
    for (size_t i = 1; i < ranked.size(); ++i) {
      const double free_gib = (use->usable_bytes - ranked[i].memory.total_bytes()) / kGiB;
      if (!(free_gib >= min_gib.value_or(0.0))) continue;
      r.fix = "the plan's layout " + std::to_string(i + 1) + " of its ranking keeps " + fmt(free_gib) +
              " GiB free at " + fmt(100 * ranked[i].time.mfu) + " % MFU: give emit (or layout --from) " +
              layout_pins(ranked[i].layout);
      return r;
    }
    r.fix = "none of the plan's " + std::to_string(ranked.size()) +
            " ranked layouts keeps that free; rank its layouts "
            "by memory: layout --from the plan --objective memory";
    return r;
  }
  const auto fixes = verified_memory_fixes(f, min_gib);
  if (fixes.empty()) r.reason += "; no single change fits";
  r.fix = changes_text(fixes);
  return r;
}

// Model FLOP/s over the 16-bit peak for the proposal's layout (or the best the search finds).
Finding mfu(const RuleSetting& s, const Facts& f) {
  if (!f.plan || !f.plan->feasible())
    return not_applicable(pinned(f) ? "this layout does not fit, so no MFU is predicted"
                                    : "no layout fits, so no MFU is predicted");
  return bounded(f.plan->mfu, s, "predicted MFU", "");
}

// A layout in the proposal's field names: "tp 8, pp 4, dp 16, vpp 1, micro_batch 1, zero 1, recompute none,
// sequence_parallel on".
std::string layout_text(const parallel::Layout& l) {
  std::string out = "tp " + std::to_string(l.tp) + ", pp " + std::to_string(l.pp) + ", dp " + std::to_string(l.dp);
  if (l.cp > 1) out += ", cp " + std::to_string(l.cp);
  if (l.ep > 1) out += ", ep " + std::to_string(l.ep);
  out += ", vpp " + std::to_string(l.vpp) + ", micro_batch " + std::to_string(l.micro_batch) + ", zero " +
         std::to_string(l.zero_stage) + ", recompute " + std::string(model::kRecomputeNames.name(l.recompute));
  // Sequence parallelism splits only a tensor-parallel group; lighter edge stages are the search's (no proposal
  // field pins them), said as the stages' layers.
  if (l.tp > 1) out += std::string(", sequence_parallel ") + (l.sequence_parallel ? "on" : "off");
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0)
    out += "; first and last stages of " + std::to_string(l.first_stage_layers) + " and " +
           std::to_string(l.last_stage_layers) + " layers";
  return out;
}

// The knobs of layout_text the proposal left open, which the search chose: "; vpp and zero chosen by the search".
std::string chosen_text(const parallel::LayoutPins& pins, const parallel::Layout& l) {
  std::vector<std::string> open;
  if (!pins.cp && l.cp > 1) open.push_back("cp");
  if (!pins.ep && l.ep > 1) open.push_back("ep");
  if (!pins.vpp && l.pp > 1) open.push_back("vpp");  // one stage has one virtual stage: nothing chosen
  if (!pins.micro_batch) open.push_back("micro_batch");
  if (!pins.zero_stage) open.push_back("zero");
  if (!pins.recompute) open.push_back("recompute");
  if (!pins.sequence_parallel && l.tp > 1) open.push_back("sequence_parallel");
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) open.push_back("stage layers");
  return open.empty() ? "" : "; " + join_words(open) + " chosen by the search";
}

// The runnability rules of data/trainers.yaml and the structural checks every trainer shares.
Finding runnable(const std::string& name, const catalog::TrainerRules& trainer, const Facts& f) {
  // The proposal's own layout, else the best one the search found for it.
  const bool planned = !f.proposed_layout && f.plan && f.plan->feasible();
  const parallel::Layout* layout = planned ? &f.plan->layouts.layouts.front().layout
                                           : f.proposed_layout ? &*f.proposed_layout : nullptr;
  if (!layout || !f.job || !f.cluster) {
    if (!f.plan_error.empty()) return {true, false, std::nullopt, std::nullopt, f.plan_error, ""};
    if (f.plan && !f.plan->feasible())
      return {true, false, std::nullopt, std::nullopt, name + " runs no layout that fits: " + f.plan->layouts.infeasible->reason, ""};
    return not_applicable("the proposal pins no layout and none fits");
  }
  parallel::JobSpec job = *f.job;
  if (job.global_batch <= 0) job.global_batch = static_cast<long long>(layout->micro_batch) * layout->dp;
  const auto violation = parallel::runnability_violation(trainer, *layout, job, *f.cluster);
  const std::string which = planned ? "the best layout the search finds under its rules" : "this layout";
  Finding r;
  r.holds = !violation;
  const std::string chosen = planned || f.proposal->plan ? "" : chosen_text(f.proposal->layout, *layout);
  r.reason = violation ? name + " does not run " + which + ": " + violation->reason + " (" + violation->rule + ")" +
                             (chosen.empty() ? "" : " [" + layout_text(*layout) + chosen + "]")
                       : name + " runs " + which + " (" + layout_text(*layout) + chosen + ")";
  return r;
}

Finding layout_runnable(const RuleSetting& s, const Facts& f) {
  const std::string name = s.text("trainer").value_or(f.proposal->trainer);
  const catalog::TrainerRules& trainer = f.catalog->trainer(name, "trainer");
  // The knobs a proposal leaves open are the search's to choose: under another trainer than the proposal's, search
  // again under that trainer's rules, its pins held (DeepSpeed's pipeline has no virtual stages, so it gets a
  // VPP-1 layout where the proposal left VPP open).
  if (!f.proposal->plan && name != f.proposal->trainer) {
    Proposal under = *f.proposal;
    under.trainer = name;
    return runnable(name, trainer, assess(*f.catalog, under));
  }
  return runnable(name, trainer, f);
}

}  // namespace

void add_memory_rules(std::vector<RuleInfo>& t) {
  t.push_back({"memory_headroom_gib",
               "usable memory (the device less the planner's headroom) left on the most loaded GPU of the layout",
               "GiB",
               "Korthikanti et al. 2022 activations; Rajbhandari et al. 2020 ZeRO model states",
               "layout|cluster",
               {{"min", SettingKind::kNumber, false}},
               memory_headroom,
               true});  // without a min: fits or not
  const std::vector<SettingSpec> fraction = {{"min", SettingKind::kNumber, true, 0, 1},
                                             {"max", SettingKind::kNumber, true, 0, 1}};
  t.push_back({"mfu", "predicted model FLOPs utilisation of the layout", "fraction",
               "Narayanan et al. 2021 step time; Korthikanti et al. 2022 eq. 7 model FLOPs", "layout|cluster", fraction,
               mfu});
  t.push_back({"layout_runnable", "the trainer accepts the layout (degrees, divisibility, its own rules)", "",
               "data/trainers.yaml (Megatron-LM, DeepSpeed, NeMo, FSDP arguments)", "layout",
               {{"trainer", SettingKind::kText, false}}, layout_runnable});
}

}  // namespace isoflop::check
