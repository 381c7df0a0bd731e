// From what `validate` was asked to a designed sweep.
#include "validate/sweep_options.hpp"

#include "core/error.hpp"
#include "doc/plan_document.hpp"
#include "validate/design.hpp"

namespace isoflop::validate {
namespace {

constexpr const char* kDefaultFamily = "chinchilla";

// The law choice in words, as the sweep records it ("law: chinchilla").
std::vector<std::string> law_words(const scaling::LawChoice& c) {
  std::vector<std::string> words;
  if (c.law) words.push_back("law: " + *c.law);
  if (c.law_params) words.push_back("law_params: " + *c.law_params);
  return words;
}

}  // namespace

doc::SweepDocument design_from_options(const SweepOptions& o, const catalog::Catalog& catalog) {
  if (o.plan && o.flops) throw FieldError("flops", "conflicts with a plan (from); give one");
  if (!o.plan && !o.flops) throw FieldError("flops", "missing: give a plan (from) or a budget (flops) and a law");
  if (o.law.all_laws) throw FieldError("all_laws", "a sweep checks one law; name it");
  const bool law_given = o.law.law || o.law.law_params;
  std::optional<catalog::LawSpec> law;
  if (law_given || !o.plan) law = scaling::select_laws(catalog, o.law).front();
  DesignRequest r;
  if (o.plan) {
    doc::require_kind(*o.plan, {"plan"});
    const auto plan = doc::decode<plan::PlanResult>(*o.plan);
    r.target = target_from_plan(plan, o.plan->source, catalog, law, o.family);
  } else {
    r.target = target_from_law(*law, *o.flops, o.family.value_or(kDefaultFamily), law_words(o.law), catalog);
  }
  if (law_given) r.target.origin.law_flags = law_words(o.law);
  const SweepSettings& settings = sweep_settings();
  r.preset = settings.preset(o.preset);
  r.preset_name = o.preset;
  if (o.total_flops) r.preset.total_flops = *o.total_flops;
  if (o.budgets) r.preset.budgets = *o.budgets;
  if (o.sizes) r.preset.sizes = *o.sizes;
  if (o.total_flops || o.budgets || o.sizes) r.preset_name = "custom";
  r.data.source = train::kDataSourceNames.parse(o.source.value_or("quanta"), "source");
  if (r.data.source != train::DataSource::kQuanta && r.data.source != train::DataSource::kMarkov)
    throw FieldError("source", "a sweep needs a generated source with a known floor; accepted: quanta, markov");
  r.data.quanta.alphabet = r.preset.alphabet;
  // The accelerator every run's MFU is counted against: one the catalog has, or the runs would all fail later.
  if (!o.peak_device.empty()) catalog.accelerator(o.peak_device, "peak_device");
  r.peak_device = o.peak_device;
  LrRule rule = settings.rule_for(r.preset);
  // A preset's own rule was fitted to that preset's sweep on the quanta source: say so where it is borrowed.
  const bool borrowed = r.preset.learning_rate && (r.preset_name == "custom" ||
                                                   r.data.source != train::DataSource::kQuanta);
  if (borrowed) rule.rule += " (the " + o.preset + " preset's rule, borrowed outside the sweep it was fitted to)";
  return design_sweep(r, rule);
}

}  // namespace isoflop::validate
