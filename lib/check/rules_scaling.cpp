// Scaling rules: tokens per parameter, the loss given up against the compute-optimal allocation, the band of
// the catalog's laws, and epochs over unique data.
#include <cmath>
#include <cstdio>

#include "check/rules.hpp"
#include "scaling/allocate.hpp"
#include "scaling/loss_law.hpp"
#include "scaling/query.hpp"
#include "units/format.hpp"

namespace isoflop::check {
namespace {

constexpr const char* kDefaultLaw = "epoch-2024";

// The laws were fitted to dense models; a sparse model's total parameters are not their N.
constexpr const char* kDenseLaws = "the laws are fitted to dense models; an MoE's total parameters are not their N";
bool is_moe(const Facts& f) { return f.architecture && f.architecture->moe.enabled(); }

std::string count(double v) { return units::format_count(v, 2); }
std::string nats(double loss) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", loss);
  return text;
}

Finding tokens_per_param(const RuleSetting& s, const Facts& f) {
  return bounded(f.tokens / f.params, s, "tokens per parameter", "");
}

// The proposal's predicted loss against the compute-optimal loss at the same 6·N·D (Hoffmann et al. 2022 eq. 2
// and eq. 4; the law a policy names, Epoch AI's 2024 refit by default).
Finding loss_gap(const RuleSetting& s, const Facts& f) {
  if (is_moe(f)) return not_applicable(kDenseLaws);
  const std::string law_name = s.text("law").value_or(kDefaultLaw);
  const catalog::LawSpec& law = f.catalog->law(law_name, "law");
  if (!scaling::has_loss(law)) return not_applicable("law " + law_name + " predicts no loss");
  const double loss = scaling::predicted_loss(law, f.params, f.tokens);
  const scaling::Allocation opt = scaling::allocate(law, f.flops_6nd);
  const double gap = 100.0 * (loss / *opt.loss - 1.0);
  Finding r;
  r.value = gap;
  r.threshold = s.number("max_percent");
  r.holds = !r.threshold || gap <= *r.threshold;
  // Within 10 % of the optimal tokens per parameter, the split is called compute-optimal.
  const double ratio = (f.tokens / f.params) / opt.tokens_per_param;
  const char* verdict = ratio < 1 / 1.1 ? "under-trained" : ratio > 1.1 ? "over-trained" : "close to compute-optimal";
  // A law whose allocation is not the minimum of its own loss formula (Kaplan et al. 2020: N ∝ C^0.73 comes from
  // early-stopped runs, not from eq. 1.5 at fixed 6ND) can put a proposal below its "optimum": said as below.
  const std::string relation = gap >= 0 ? fmt(gap, 2) + " % above" : fmt(-gap, 2) + " % below";
  r.reason = "predicted loss " + nats(loss) + " is " + relation + " the compute-optimal " + nats(*opt.loss) +
             (gap < 0 ? " (this law's allocation is not the minimum of its loss formula)" : "") + " at " +
             units::format_scientific(f.flops_6nd, 2) + " FLOPs (" + law_name + "): " + count(f.params) + " on " +
             count(f.tokens) + " tokens is " + verdict + "; the optimum is " + count(opt.params) + " on " +
             count(opt.tokens);
  if (!r.holds) r.fix = "params " + count(opt.params) + ", tokens " + count(opt.tokens) + " at the same compute";
  return r;
}

// The parameter count against the spread of compute-optimal sizes across the catalog's laws at this compute.
Finding within_band(const RuleSetting&, const Facts& f) {
  if (is_moe(f)) return not_applicable(kDenseLaws);
  const auto laws = scaling::select_laws(*f.catalog, {std::nullopt, std::nullopt, true});
  const scaling::AllocationBand band = scaling::allocation_band(laws, f.flops_6nd);
  Finding r;
  r.value = f.params;
  const bool low = f.params < band.params_min * (1 - 1e-9);
  const bool high = f.params > band.params_max * (1 + 1e-9);
  r.holds = !low && !high;
  r.threshold = low ? band.params_min : band.params_max;
  r.reason = count(f.params) + " parameters " + (r.holds ? "lie within" : low ? "lie below" : "lie above") +
             " the laws' compute-optimal band " + count(band.params_min) + " to " + count(band.params_max) + " at " +
             units::format_scientific(f.flops_6nd, 2) + " FLOPs (" + std::to_string(band.laws.size()) + " laws)";
  if (!r.holds) r.fix = "params between " + count(band.params_min) + " and " + count(band.params_max);
  return r;
}

// Muennighoff et al. 2023: up to about 4 epochs of repeated data cost almost nothing; beyond, returns fall.
Finding epochs(const RuleSetting& s, const Facts& f) {
  if (!f.unique_tokens) return not_applicable("the proposal states no unique_tokens");
  Finding r = bounded(f.tokens / *f.unique_tokens, s, "epochs over the unique data", "");
  if (!r.holds)
    if (auto hi = s.number("max")) r.fix = "tokens at most " + count(*hi * *f.unique_tokens) + ", or more unique data";
  return r;
}

}  // namespace

void add_scaling_rules(std::vector<RuleInfo>& t) {
  t.push_back({"tokens_per_param", "training tokens per parameter, D/N", "tokens/param",
               "Hoffmann et al. 2022 (about 20 at the compute-optimum)", "tokens",
               {{"min", SettingKind::kNumber, true}, {"max", SettingKind::kNumber, true}}, tokens_per_param});
  t.push_back({"loss_gap_vs_optimal",
               "predicted loss above the compute-optimal loss at the same compute 6ND, in percent", "percent",
               "Hoffmann et al. 2022 eq. 2 and 4; law epoch-2024 (Besiroglu et al. 2024) unless named", "arch|params",
               {{"max_percent", SettingKind::kNumber, true}, {"law", SettingKind::kText, false}}, loss_gap});
  t.push_back({"within_law_band", "parameters within the compute-optimal band of the catalog's laws", "params",
               "data/laws.yaml (Chinchilla, Epoch 2024, Muennighoff, DeepSeek, Llama 3 …)", "arch|params", {}, within_band});
  t.push_back({"epochs_over_unique_data", "training tokens over unique tokens", "epochs",
               "Muennighoff et al. 2023: up to ~4 epochs are almost as good as new data", "unique_tokens",
               {{"max", SettingKind::kNumber, true}}, epochs});
}

}  // namespace isoflop::check
