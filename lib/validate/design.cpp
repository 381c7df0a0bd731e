// The sweep design: budgets, sizes, shapes, tokens and rules.
#include "validate/design.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "model/shape.hpp"
#include "scaling/allocate.hpp"
#include "train/job.hpp"
#include "units/format.hpp"
#include "validate/shape.hpp"

namespace isoflop::validate {
namespace {

// d ln y / d ln C of the law's allocation at `flops`, by a central difference over ±10 %.
void local_exponents(const catalog::LawSpec& law, double flops, doc::SweepOrigin& o) {
  const scaling::Allocation lo = scaling::allocate(law, flops / 1.1), hi = scaling::allocate(law, flops * 1.1);
  const double span = std::log(1.21);
  o.law_exponent_a = std::log(hi.params / lo.params) / span;
  o.law_exponent_b = std::log(hi.tokens / lo.tokens) / span;
}

// The shape family a plan's family names: "chinchilla" for "chinchilla-70b".
std::optional<model::ShapeFamily> find_family(const catalog::Catalog& catalog, const std::string& family) {
  for (const auto& f : catalog.shape_families)
    if (family == f.name || family.rfind(f.name + "-", 0) == 0) return f;
  return std::nullopt;
}

void set_family(SweepTarget& t, const catalog::Catalog& catalog, const std::string& family) {
  t.origin.family = family;
  t.family = find_family(catalog, family);
  if (t.family && t.family->rule == model::ShapeRule::kAspect) return;
  t.family.reset();
  const catalog::ModelEntry* m = catalog.find_model(family);
  if (!m) throw FieldError("family", "'" + family + "' is neither an aspect-rule shape family nor a catalog model");
  t.reference_aspect = static_cast<double>(m->architecture.d_model) / m->architecture.layers;
}

double aspect_at(const SweepTarget& t, double params) {
  return t.family ? model::preferred_shape(*t.family, params).aspect : t.reference_aspect;
}

// The markov corpus is drawn into memory (4 bytes a token): longer runs walk it more than once, which an
// order-1 source with a known floor tolerates.
constexpr double kMaxMarkovTokens = 1 << 24;

std::string flops_text(double c) { return units::format_scientific(c) + " FLOPs"; }

// The sweep sizes its models by their total parameters, embeddings included: a law of non-embedding N (Kaplan's,
// DeepSeek's) would be checked against another count (its N_opt at a smoke budget is a few dozen parameters).
void require_total_parameters(const catalog::LawSpec& law, const catalog::Catalog& catalog) {
  if (law.parameters == "total") return;
  std::vector<std::string> accepted;
  for (const auto& l : catalog.laws)
    if (l.parameters == "total") accepted.push_back(l.name);
  throw FieldError("law", "'" + law.name + "' counts " + law.parameters +
                              " parameters, and the sweep sizes its models by their total parameters; accepted: a "
                              "law of total parameters (" +
                              join(accepted) + ")");
}

}  // namespace

SweepTarget target_from_plan(const plan::PlanResult& plan, const std::string& plan_file,
                             const catalog::Catalog& catalog, const std::optional<catalog::LawSpec>& law,
                             const std::optional<std::string>& family) {
  if (!law && plan.allocation.law.empty()) throw FieldError("from", "'" + plan_file + "' has no scaling law");
  // The laws are fitted to dense models: an MoE plan's total parameters are not their N, and the sweep trains
  // dense models, so there is no allocation of its to check.
  if (plan.job.architecture.moe.enabled())
    throw FieldError("from", "'" + plan_file +
                                 "' plans a mixture of experts, and the laws and the sweep's models "
                                 "are dense; accepted: a dense plan, or --flops with a law");
  if (!(plan.allocation.flops > 0) || !(plan.allocation.params > 0))
    throw FieldError("from", "'" + plan_file + "' has no compute-optimal allocation to check");
  SweepTarget t;
  if (law) {
    t.law = *law;
  } else {
    const catalog::LawSpec* found = catalog.find_law(plan.allocation.law);
    if (!found)
      throw FieldError("from", "'" + plan_file + "' uses the law '" + plan.allocation.law +
                                   "', which is not in the catalog; give the law explicitly");
    t.law = *found;
  }
  require_total_parameters(t.law, catalog);
  auto& o = t.origin;
  o.plan_file = plan_file;
  o.law = t.law.name;
  o.full_budget_flops = plan.allocation.flops;
  o.n_opt = plan.allocation.params;
  o.d_opt = plan.allocation.tokens;
  o.accelerator = plan.cluster.accelerator.name;
  if (const auto* p = t.law.parametric()) o.parametric = *p;
  local_exponents(t.law, o.full_budget_flops, o);
  set_family(t, catalog, family.value_or(plan.family));
  return t;
}

SweepTarget target_from_law(const catalog::LawSpec& law, double flops, const std::string& family,
                            const std::vector<std::string>& law_flags, const catalog::Catalog& catalog) {
  require_total_parameters(law, catalog);
  SweepTarget t;
  t.law = law;
  const scaling::Allocation a = scaling::allocate(law, flops);
  auto& o = t.origin;
  o.law = law.name;
  o.law_flags = law_flags;
  o.full_budget_flops = flops;
  o.n_opt = a.params;
  o.d_opt = a.tokens;
  if (const auto* p = law.parametric()) o.parametric = *p;
  local_exponents(law, flops, o);
  set_family(t, catalog, family);
  return t;
}

doc::SweepDocument design_sweep(const DesignRequest& request, const LrRule& rule) {
  const Preset& p = request.preset;
  // Approach 2's exponent needs two budgets; past 16 the sweep is no longer a small check of the plan.
  if (p.budgets < 2 || p.budgets > 16)
    throw FieldError("budgets", std::to_string(p.budgets) + " is out of range; accepted: 2 to 16 (Approach 2 needs 2)");
  // Approach 2 fits a parabola to each budget's losses: three sizes at least, or no budget's minimum is found.
  if (p.sizes < 3)
    throw FieldError("sizes", std::to_string(p.sizes) +
                                  " is too few; accepted: at least 3 (a parabola through each "
                                  "budget's losses)");
  doc::SweepDocument d;
  d.origin = request.target.origin;
  d.preset = request.preset_name;
  d.backend = p.backend;
  d.peak_device = request.peak_device;
  d.data = request.data;
  d.source_seed =
      request.data.source == train::DataSource::kQuanta ? request.data.quanta.seed : request.data.markov.seed;
  d.rules.lr_rule = rule.rule;
  d.rules.lr = rule.formula;
  d.rules.warmup_fraction = rule.warmup_fraction;
  d.rules.schedule = "cosine";
  d.rules.min_lr_fraction = rule.min_lr_fraction;
  d.rules.batch = p.batch;
  d.rules.seq = p.seq;
  d.rules.vocab = p.vocab;
  d.rules.eval_tokens = p.eval_tokens;
  d.threads = p.threads;
  d.sizes_per_budget = p.sizes;
  // Σ_k M·C_k = total with C_k = C_top / spacing^(K-1-k).
  double weight = 0;
  for (int k = 0; k < p.budgets; ++k) weight += std::pow(p.spacing, -k);
  const double top = p.total_flops / (p.sizes * weight);
  // The sweep is a scaled-down check of the plan: its fitted law is carried up to the plan's budget, never down.
  if (!(d.origin.full_budget_flops >= top))
    throw FieldError(d.origin.plan_file.empty() ? "flops" : "from",
                     "the plan's budget " + flops_text(d.origin.full_budget_flops) + " is below the sweep's largest, " +
                         flops_text(top) +
                         " (a validation sweep is a small check of a larger run); accepted: at least " +
                         flops_text(top) + ", or lower the total compute");
  const double step_tokens = static_cast<double>(p.batch) * p.seq;
  for (int k = 0; k < p.budgets; ++k) {
    const double c = top * std::pow(p.spacing, k - (p.budgets - 1));
    const scaling::Allocation a = scaling::allocate(request.target.law, c);
    d.budgets.push_back({c, a.params, a.tokens});
    for (int j = 0; j < p.sizes; ++j) {
      // log-spaced over size_span, centred on the law's N_opt(C).
      const double target = a.params * std::pow(p.size_span, static_cast<double>(j) / (p.sizes - 1) - 0.5);
      const SizedModel m = shape_model(target, aspect_at(request.target, target), p.seq, p.vocab);
      doc::SweepRun r;
      r.id = "b" + std::to_string(k) + "-s" + std::to_string(j);
      r.budget = k;
      r.flops = c;
      r.target_params = target;
      r.params = m.params;
      r.non_embedding_params = m.non_embedding_params;
      r.shape = m.config;
      const double tokens = c / (6 * m.params);  // C = 6ND
      if (!(tokens <= train::kMaxTokens))  // a job of more tokens is refused by train (and its steps pass a long long)
        throw FieldError("total_flops", "the budget " + flops_text(c) + " gives the model of " +
                                            units::format_count(m.params) + " parameters " +
                                            units::format_scientific(tokens) + " tokens, more than the " +
                                            units::format_scientific(train::kMaxTokens) +
                                            " a training job may run; lower the total compute");
      r.steps = std::llround(tokens / step_tokens);
      if (r.steps < p.min_steps)
        throw FieldError("total_flops", "the budget " + flops_text(c) + " is too small for the model of " +
                                            units::format_count(m.params) + " parameters: " + std::to_string(r.steps) +
                                            " steps of " + units::format_count(step_tokens) + " tokens, at least " +
                                            std::to_string(p.min_steps) + " are needed; raise the total compute");
      r.tokens = static_cast<double>(r.steps) * step_tokens;
      r.lr = rule.formula.peak_lr(m.non_embedding_params, r.tokens);
      if (!(r.lr > 0)) throw FieldError("lr", "the rule gives no positive learning rate for " + r.id);
      r.warmup_tokens = std::floor(rule.warmup_fraction * r.tokens);
      r.job = "jobs/" + r.id + ".yaml";
      r.folder = "runs/" + r.id;
      d.total_flops += 6 * r.params * r.tokens;
      d.runs.push_back(r);
    }
  }
  for (size_t i = 1; i < d.runs.size(); ++i)
    if (d.runs[i].budget == d.runs[i - 1].budget && d.runs[i].shape == d.runs[i - 1].shape)
      throw FieldError("sizes", "two sizes at " + flops_text(d.runs[i].flops) + " get the same model (" +
                                    train::describe(d.runs[i].shape) + "); ask for fewer sizes or a larger span");
  return d;
}

train::Job run_job(const doc::SweepDocument& sweep, const doc::SweepRun& run, const std::string& folder) {
  train::Job job;
  job.model = run.shape;
  job.train.tokens = run.tokens;
  job.train.batch = sweep.rules.batch;
  job.train.lr = run.lr;
  job.train.warmup_tokens = run.warmup_tokens;
  job.train.min_lr_fraction = sweep.rules.min_lr_fraction;
  job.data = sweep.data;
  if (job.data.source == train::DataSource::kMarkov) {
    // A corpus that holds the run's tokens without repeating (plus a step of slack) and then the evaluation.
    const double step_tokens = static_cast<double>(job.tokens_per_step());
    const double val_tokens = sweep.rules.eval_tokens + step_tokens + 1;
    job.data.tokens = std::llround(std::min(run.tokens + 2 * step_tokens, kMaxMarkovTokens) + val_tokens);
    job.data.val_fraction = val_tokens / static_cast<double>(job.data.tokens);
  } else if (job.data.source == train::DataSource::kQuanta) {
    // Every training token fresh (+1 for the last target); the held-out stream is the evaluation's.
    job.data.tokens = std::llround(run.tokens) + 1;
    job.data.val_tokens = std::llround(sweep.rules.eval_tokens) + 1;
  }
  job.backend = sweep.backend;
  job.threads = sweep.threads;
  job.eval.every = 0;  // one evaluation, after the last step
  job.eval.tokens = sweep.rules.eval_tokens;
  job.checkpoint.every = std::max<long long>(1, run.steps / 4);  // each save is synced: a few per run
  job.peak_device = sweep.peak_device;
  job.output = folder;
  job.checkpoint.path = folder + "/checkpoint.bin";
  return job;
}

}  // namespace isoflop::validate
