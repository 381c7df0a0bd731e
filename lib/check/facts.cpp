// A proposal's facts: its architecture counted, and the plan the library makes of it with its own pins.
#include "check/facts.hpp"

#include "core/error.hpp"
#include "model/params.hpp"
#include "model/shape.hpp"
#include "plan/plan_request.hpp"
#include "units/format.hpp"

namespace isoflop::check {
namespace {

// The proposal field a plan request's field comes from, for file:line.
std::string proposal_field(const std::string& field) {
  for (const char* f : {"gpu", "node", "gpus", "nodes", "gpus_per_node"})
    if (field == f) return std::string("cluster.") + f;
  if (field == "grid") return "region";
  if (field == "price_per_gpu_hour_usd") return "price_per_gpu_hour";
  return field;
}

std::optional<parallel::Layout> pinned_layout(const parallel::LayoutPins& p) {
  if (!p.tp || !p.pp || !p.dp) return std::nullopt;
  parallel::Layout l;
  l.tp = *p.tp;
  l.pp = *p.pp;
  l.dp = *p.dp;
  l.ep = p.ep.value_or(1);
  l.vpp = p.vpp.value_or(1);
  l.cp = p.cp.value_or(1);
  l.micro_batch = p.micro_batch.value_or(1);
  l.zero_stage = p.zero_stage.value_or(0);
  l.recompute = p.recompute.value_or(model::Recompute::kNone);
  l.sequence_parallel = p.sequence_parallel.value_or(false);
  return l;
}

// A pinned TP·PP·CP·DP that is not the GPU count, in the proposal's words: "tp 8 × pp 4 × dp 30 = 960 ≠ gpus 1024".
std::optional<std::string> product_mismatch(const Proposal& p, long long gpus) {
  const auto& pins = p.layout;
  if (!pins.tp || !pins.pp || !pins.dp) return std::nullopt;
  const parallel::Layout pinned = *pinned_layout(pins);
  if (pinned.gpus() == gpus) return std::nullopt;
  auto n = [](long long v) { return std::to_string(v); };
  std::string out = "tp " + n(*pins.tp) + " × pp " + n(*pins.pp);
  if (pins.cp) out += " × cp " + n(*pins.cp);
  out += " × dp " + n(*pins.dp) + " = " + pinned.gpus_text() + " ≠ ";
  if (p.cluster.gpus) return out + "gpus " + n(gpus);
  return out + "the cluster's " + n(gpus) + " GPUs";
}

void from_plan(const plan::PlanResult& p, Facts& f) {
  f.architecture = p.job.architecture;
  f.params = model::count_params(p.job.architecture).total();
  f.tokens = p.tokens;
  f.job = p.job;
  f.cluster = p.cluster;
  if (p.feasible()) f.proposed_layout = p.layouts.layouts.front().layout;
  f.plan = p;
}

}  // namespace

Facts assess(const catalog::Catalog& catalog, const Proposal& proposal) {
  Facts f;
  f.catalog = &catalog;
  f.proposal = &proposal;
  f.unique_tokens = proposal.unique_tokens;
  if (proposal.plan) {
    from_plan(*proposal.plan, f);
    f.flops_6nd = 6 * model::count_params(*f.architecture).active * f.tokens;
    return f;
  }
  try {
    model::Architecture a;
    if (proposal.architecture) {
      a = *proposal.architecture;
    } else {
      model::ShapeOptions shape;
      shape.reference = catalog.model(proposal.family, "family").architecture;
      // Shaped with the positions its trainer builds, as plan shapes it.
      plan::use_trainer_positions(shape.reference, catalog.trainer(proposal.trainer, "trainer"));
      try {
        a = model::shape_architecture(*proposal.params, shape).best.architecture;
      } catch (const InfeasibleError& e) {  // no shape of the family has that many parameters: the count is wrong
        throw FieldError("params", std::string(e.what()) + "; give the count with its unit (70B, 7e10)");
      }
      a.name = "shaped after " + proposal.family;
    }
    if (proposal.seq) a.seq = *proposal.seq;
    f.architecture = a;
    f.params = model::count_params(a).total();
    f.tokens = proposal.tokens;
    // Fewer tokens than one sequence is a count without its unit (1.4 for 1.4T), never a training run.
    if (f.tokens < static_cast<double>(a.seq))
      throw FieldError("tokens", units::format_significant(f.tokens, 4) + " tokens are fewer than one sequence of " +
                                     std::to_string(a.seq) + "; give the count with its unit (1.4T, 300B)");
    // An MoE's compute follows its active parameters (6·N_active·D), as plan counts it.
    f.flops_6nd = 6 * model::count_params(a).active * f.tokens;

    plan::PlanRequest request;
    request.architecture = a;
    request.global_batch_sequences = proposal.global_batch;  // as stated: the launch runs exactly this batch
    request.cluster = proposal.cluster;
    request.search.pins = proposal.layout;
    request.search.trainer = catalog.trainer(proposal.trainer, "trainer");
    request.energy.grid = proposal.region;
    request.energy.pue = proposal.pue;
    request.energy.price_per_gpu_hour_usd = proposal.price_per_gpu_hour_usd;
    request.min_mfu = 0.0;  // the policy's mfu rule judges utilisation, not the planner's floor
    const plan::ResolvedPlan resolved = plan::resolve_plan(catalog, request);
    f.cluster = resolved.options.cluster;
    f.proposed_layout = pinned_layout(proposal.layout);
    parallel::JobSpec job;
    job.architecture = a;
    job.seq = a.seq;
    job.global_batch = proposal.global_batch.value_or(0);
    f.job = job;
    if (const auto mismatch = product_mismatch(proposal, f.cluster->gpus)) {
      f.plan_error = *mismatch;
      return f;
    }
    plan::Budget budget;
    budget.flops = f.flops_6nd;
    try {
      f.plan = plan::make_plan(budget, resolved.options);
      f.job = f.plan->job;
      // The knobs the proposal leaves open (VPP, micro-batch, ZeRO, recompute) are the search's: every rule judges
      // the layout it chose, and says so.
      if (f.proposed_layout && f.plan->feasible()) f.proposed_layout = f.plan->layouts.layouts.front().layout;
    } catch (const FieldError& e) {  // a pin the job cannot take (heads % TP): the layout rules say so
      f.plan_error = e.what();
    } catch (const InfeasibleError& e) {
      f.plan_error = e.what();
    } catch (const InputError& e) {
      if (dynamic_cast<const CatalogError*>(&e)) throw;
      f.plan_error = e.what();
    }
  } catch (const FieldError& e) {
    const std::string field = proposal_field(e.field());
    throw InputError(proposal.source + ":" + std::to_string(line_of(proposal.marks, field)) + ": " + field + ": " +
                     e.message() + (e.remedy().empty() ? "" : "; give " + proposal_field(e.remedy())));
  }
  return f;
}

}  // namespace isoflop::check
