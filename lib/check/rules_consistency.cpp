// Consistency rules: what a proposal states (its FLOPs, its days) against what its own numbers give.
#include <cmath>

#include "check/rules.hpp"
#include "core/suggest.hpp"
#include "units/format.hpp"
#include "units/si.hpp"

namespace isoflop::check {
namespace {

Finding within_percent(double stated, double derived, const RuleSetting& s, const std::string& what,
                       const std::string& how) {
  Finding r;
  r.value = 100.0 * std::fabs(stated - derived) / derived;
  r.threshold = s.number("max_percent");
  r.holds = !r.threshold || *r.value <= *r.threshold;
  r.reason = "stated " + what + " " + fmt(stated, 4) + " differ by " + fmt(*r.value, 2) + " % from the " +
             fmt(derived, 4) + " " + how;
  if (!r.holds) r.fix = what + " " + fmt(derived, 4);
  return r;
}

// A plan document states the budget it was asked for: its other figures (a days plan's FLOPs, a FLOPs plan's
// days) are what it predicts, not what it states.
std::string states_none(const Facts& f, const char* what) {
  if (!f.proposal->plan) return std::string("the proposal states no ") + what;
  const auto& b = f.proposal->plan->budget;
  std::vector<std::string> asked;
  if (b.flops) asked.emplace_back("FLOPs");
  if (b.time_s) asked.emplace_back("a time");
  if (b.usd) asked.emplace_back("money");
  if (b.energy_kwh) asked.emplace_back("energy");
  if (b.co2e_kg) asked.emplace_back("carbon");
  const std::string named = std::string(what) == "flops" ? "FLOPs" : what;
  if (asked.empty()) return "the plan document states no budget, so its " + named + " are predicted, not stated";
  return "the plan was asked for " + join_words(asked) + ", not " + named + ", so its " + named +
         " are predicted, not stated";
}

Finding stated_flops(const RuleSetting& s, const Facts& f) {
  if (!f.proposal->flops) return not_applicable(states_none(f, "flops"));
  const bool moe = f.architecture && f.architecture->moe.enabled();
  return within_percent(*f.proposal->flops, f.flops_6nd, s, "FLOPs",
                        moe ? "that 6·N_active·D gives for its active parameters and tokens (an MoE)"
                            : "that 6·N·D gives for its parameters and tokens");
}

Finding stated_days(const RuleSetting& s, const Facts& f) {
  if (!f.proposal->days) return not_applicable(states_none(f, "days"));
  if (!f.plan || !f.plan->feasible()) return not_applicable("no layout fits, so no duration is predicted");
  return within_percent(*f.proposal->days, f.plan->time_s / units::kSecondsPerDay, s, "days",
                        "its layout's predicted throughput gives");
}

}  // namespace

void add_consistency_rules(std::vector<RuleInfo>& t) {
  t.push_back({"stated_flops", "stated training FLOPs against 6ND of the proposal's own N and D", "percent",
               "Kaplan et al. 2020 C = 6ND", "flops", {{"max_percent", SettingKind::kNumber, true}}, stated_flops});
  t.push_back({"stated_days", "stated days against the duration the layout's predicted throughput gives",
               "percent", "tokens / tokens per second of the step-time model", "days",
               {{"max_percent", SettingKind::kNumber, true}}, stated_days});
}

}  // namespace isoflop::check
