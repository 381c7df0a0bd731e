// Cost rules: caps on days, GPU-hours, energy, CO2e and money of the run as lib/cost prices it, and the grid.
#include "check/rules.hpp"
#include "core/suggest.hpp"

namespace isoflop::check {
namespace {

const cost::RunCost* run_cost(const Facts& f) {
  return f.plan && f.plan->cost ? &f.plan->cost->result : nullptr;
}

constexpr const char* kNoCost = "no layout fits, so the run is not costed";

Finding days(const RuleSetting& s, const Facts& f) {
  const auto* c = run_cost(f);
  return c ? bounded(c->days, s, "predicted duration", "days") : not_applicable(kNoCost);
}
Finding gpu_hours(const RuleSetting& s, const Facts& f) {
  const auto* c = run_cost(f);
  return c ? bounded(c->gpu_hours, s, "GPU-hours", "") : not_applicable(kNoCost);
}
Finding energy_mwh(const RuleSetting& s, const Facts& f) {
  const auto* c = run_cost(f);
  return c ? bounded(c->energy_kwh / 1000.0, s, "facility energy", "MWh") : not_applicable(kNoCost);
}
Finding co2e_t(const RuleSetting& s, const Facts& f) {
  const auto* c = run_cost(f);
  return c ? bounded(c->co2e_kg / 1000.0, s, "gross CO2e", "t") : not_applicable(kNoCost);
}
Finding cost_usd(const RuleSetting& s, const Facts& f) {
  const auto* c = run_cost(f);
  if (!c) return not_applicable(kNoCost);
  // A cap the proposal gives nothing to hold to: it fails (a missing line must not pass a gate).
  if (!c->cost_usd) {
    Finding r;
    r.holds = false;
    r.reason = "the proposal states no price, so its cost cannot be held to the policy's cap";
    r.fix = f.proposal->plan ? "plan again with --price-per-gpu-hour" : "price_per_gpu_hour (USD per GPU-hour)";
    return r;
  }
  return bounded(*c->cost_usd, s, "cost", "USD");
}

Finding regions(const RuleSetting& s, const Facts& f) {
  const auto& region = f.proposal->region;
  Finding r;
  // Where the run happens, unsaid, cannot be held to the list (its CO2e was counted at the catalog's default grid):
  // it fails, so that leaving the line out does not pass the gate.
  // A plan document names its grid where it was a catalog region; one given as a number, or written before plans
  // recorded it, has only the intensity, which grid_intensity judges.
  if (!region && f.proposal->plan)
    return not_applicable(
        "the plan document names no grid region (its intensity was given as a number, or it was "
        "written before plans recorded one); grid_intensity judges its intensity");
  if (!region) {
    r.holds = false;
    r.reason = "the proposal names no region, so it cannot be held to the allowed: " + join(s.allow);
    if (!s.allow.empty()) r.fix = "region " + s.allow.front();
    return r;
  }
  r.holds = false;
  for (const auto& a : s.allow) r.holds = r.holds || a == *region;
  r.reason = "region " + *region + (r.holds ? " is allowed" : " is not among the allowed: " + join(s.allow));
  if (!r.holds && !s.allow.empty()) r.fix = "region " + s.allow.front();
  return r;
}

Finding grid_intensity(const RuleSetting& s, const Facts& f) {
  if (!f.plan || !f.plan->cost) return not_applicable(kNoCost);
  return bounded(f.plan->cost->inputs.intensity_kg_per_kwh * 1000.0, s, "grid intensity", "g/kWh");
}

std::vector<SettingSpec> cap() { return {{"max", SettingKind::kNumber, true}}; }

}  // namespace

void add_cost_rules(std::vector<RuleInfo>& t) {
  t.push_back({"days", "predicted wall-clock days of the run", "days", "time = FLOPs / (GPUs x peak x MFU)",
               "days|cluster", cap(), days});
  t.push_back({"gpu_hours", "accelerator-hours of the run", "GPU-hours", "GPUs x time", "cluster", cap(), gpu_hours});
  t.push_back({"energy_mwh", "facility energy, PUE included", "MWh",
               "power x time x PUE (Patterson et al. 2021; data/hardware.yaml)", "cluster", cap(), energy_mwh});
  t.push_back({"co2e_t", "gross operational emissions", "t CO2e", "energy x grid intensity (data/grids.yaml)",
               "region|cluster", cap(), co2e_t});
  t.push_back({"cost_usd", "money of the priced parts of the run", "USD", "GPU-hours x price per GPU-hour",
               "price_per_gpu_hour|cluster", cap(), cost_usd});
  const SettingSpec allow{
      .key = "allow", .kind = SettingKind::kList, .non_negative = false, .names = NameList::kGridRegions};
  t.push_back(
      {"regions", "the grid region is one the policy allows", "", "the policy's list", "region", {allow}, regions});
  t.push_back({"grid_intensity", "carbon intensity of the run's grid", "g CO2e/kWh", "data/grids.yaml", "region|cluster",
               cap(), grid_intensity});
}

}  // namespace isoflop::check
