// Systems rules: the memory left on the most loaded GPU, the predicted MFU of the proposal's layout, and
// whether the named trainer runs that layout (lib/parallel's memory model, step-time model and trainer rules).
#include "check/rules.hpp"
#include "parallel/search.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::check {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The search's changes that would make the layout fit, as "recompute full, or gpus 4480".
std::string changes_text(const std::vector<parallel::SuggestedChange>& changes) {
  std::string out;
  for (const auto& c : changes) {
    if (!out.empty()) out += ", or ";
    out += c.field;
    if (c.number) out += " " + std::to_string(*c.number);
    if (c.text) out += " " + *c.text;
    if (!c.note.empty()) out += " (" + c.note + ")";
  }
  return out;
}

// Device memory less the per-GPU memory the model predicts (Korthikanti et al. 2022; ZeRO) for the layout.
Finding memory_headroom(const RuleSetting& s, const Facts& f) {
  if (!f.plan) return {true, false, std::nullopt, s.number("min"), "no valid layout: " + f.plan_error, ""};
  const double device = f.cluster->accelerator.memory_bytes;
  const auto& search = f.plan->layouts;
  if (search.feasible()) {
    const double used = search.layouts.front().memory.total_bytes();
    Finding r = bounded((device - used) / kGiB, s, "memory headroom", "GiB");
    r.reason += " (" + fmt(used / kGiB) + " of " + fmt(device / kGiB) + " GiB per GPU used)";
    return r;
  }
  const auto& why = *search.infeasible;
  Finding r = bounded((device - why.needed_memory_bytes) / kGiB, s, "memory headroom", "GiB");
  r.holds = false;
  r.threshold = s.number("min");
  r.reason = why.reason;
  r.fix = changes_text(why.changes);
  return r;
}

// Model FLOP/s over the 16-bit peak for the proposal's layout (or the best the search finds).
Finding mfu(const RuleSetting& s, const Facts& f) {
  if (!f.plan || !f.plan->feasible()) return not_applicable("no layout fits, so no MFU is predicted");
  Finding r = bounded(f.plan->mfu, s, "predicted MFU", "");
  if (!r.holds && f.plan->problem) r.fix = changes_text(f.plan->problem->changes);
  return r;
}

// The runnability rules of data/trainers.yaml and the structural checks every trainer shares.
Finding layout_runnable(const RuleSetting& s, const Facts& f) {
  // The proposal's own layout, else the best one the search found for it (under the proposal's trainer).
  const bool planned = !f.proposed_layout && f.plan && f.plan->feasible();
  const parallel::Layout* layout = planned ? &f.plan->layouts.layouts.front().layout
                                           : f.proposed_layout ? &*f.proposed_layout : nullptr;
  if (!layout || !f.job || !f.cluster) {
    if (!f.plan_error.empty()) return {true, false, std::nullopt, std::nullopt, f.plan_error, ""};
    return not_applicable("the proposal pins no layout and none fits");
  }
  const std::string name = s.text("trainer").value_or(f.proposal->trainer);
  const catalog::TrainerRules& trainer = f.catalog->trainer(name, "trainer");
  parallel::JobSpec job = *f.job;
  if (job.global_batch <= 0) job.global_batch = static_cast<long long>(layout->micro_batch) * layout->dp;
  const auto violation = parallel::runnability_violation(trainer, *layout, job, *f.cluster);
  const std::string which = planned ? "the planned layout" : "this layout";
  Finding r;
  r.holds = !violation;
  r.reason = violation ? name + " does not run " + which + ": " + violation->reason + " (" + violation->rule + ")"
                       : name + " runs " + which;
  return r;
}

}  // namespace

void add_memory_rules(std::vector<RuleInfo>& t) {
  t.push_back({"memory_headroom_gib", "device memory left on the most loaded GPU of the layout", "GiB",
               "Korthikanti et al. 2022 activations; Rajbhandari et al. 2020 ZeRO model states", "layout|cluster",
               {{"min", SettingKind::kNumber, false}}, memory_headroom});
  t.push_back({"mfu", "predicted model FLOPs utilisation of the layout", "fraction",
               "Narayanan et al. 2021 step time; Korthikanti et al. 2022 eq. 7 model FLOPs", "layout|cluster",
               {{"min", SettingKind::kNumber, true}, {"max", SettingKind::kNumber, true}}, mfu});
  t.push_back({"layout_runnable", "the trainer accepts the layout (degrees, divisibility, its own rules)", "",
               "data/trainers.yaml (Megatron-LM, DeepSpeed, NeMo, FSDP arguments)", "layout",
               {{"trainer", SettingKind::kText, false}}, layout_runnable});
}

}  // namespace isoflop::check
