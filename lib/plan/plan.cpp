// The plan pipeline: allocate → shape → search → cost, iterated on the utilisation for time-like budgets.
#include "plan/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "model/params.hpp"
#include "parallel/stages.hpp"
#include "parallel/trainer_rules.hpp"
#include "scaling/query.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"
#include "units/si.hpp"

namespace isoflop::plan {
namespace {

using units::kSecondsPerHour;

cost::RunCostInputs cost_inputs(const PlanOptions& o, double flops, double mfu) {
  cost::RunCostInputs in = o.run_cost;
  in.flops = flops;
  in.gpus = o.cluster.gpus;
  in.peak_flops_per_gpu = o.cluster.accelerator.peak_16bit_flops;
  in.utilisation = mfu;
  in.gpus_per_node = o.cluster.gpus_per_node;
  if (!in.node_power_w && o.node.max_power_w > 0) {
    in.node_power_w = o.node.max_power_w;
    in.node_power_note = o.node.name + " maximum";
  }
  if (!(in.tdp_w > 0)) in.tdp_w = o.cluster.accelerator.tdp_w;
  return in;
}

// IT power of the whole cluster by the chosen energy method, W.
double cluster_power_w(const PlanOptions& o) {
  const cost::RunCostInputs in = cost_inputs(o, 1, 1);
  const cost::PowerInputs p = in.power_inputs();
  const cost::EnergyMethod method = in.energy_method.value_or(cost::default_energy_method(p));
  for (const auto& e : cost::estimate_power(p))
    if (e.method == method) {
      if (!e.available)
        throw FieldError("energy_method", std::string(cost::kEnergyMethodNames.name(method)) + ": " + e.assumptions);
      return e.power_w;
    }
  throw InputError("plan: no power for the cluster");
}

// Wall-clock seconds the budget buys on the cluster (time-like budgets only).
double budget_seconds(const Budget& b, const PlanOptions& o) {
  if (b.time_s) return *b.time_s;
  const cost::RunCostInputs& c = o.run_cost;
  const double gpus = o.cluster.gpus;
  const double power_kw = cluster_power_w(o) / 1000;
  if (!(c.pue >= 1)) throw FieldError("pue", "must be at least 1 (facility energy over IT energy)");
  if (b.usd) {
    if (!(c.price_per_gpu_hour_usd > 0))
      throw FieldError("budget_usd", "a money budget needs a price per GPU-hour", "price_per_gpu_hour_usd");
    const double per_hour = gpus * *c.price_per_gpu_hour_usd + power_kw * c.pue * c.price_per_kwh_usd.value_or(0);
    return *b.usd / per_hour * kSecondsPerHour;
  }
  if (b.energy_kwh) return *b.energy_kwh / (power_kw * c.pue) * kSecondsPerHour;
  if (b.co2e_kg) {
    if (!(c.intensity_kg_per_kwh > 0)) throw FieldError("co2e", "a carbon budget needs a positive grid intensity");
    return *b.co2e_kg / c.intensity_kg_per_kwh / (power_kw * c.pue) * kSecondsPerHour;
  }
  throw InputError("plan: no budget given");
}

// The depth multiple a plan also tries for a trainer that splits layers over pipeline stages evenly only.
using parallel::kEvenStagesDepthMultiple;

// Whether the trainer splits layers over pipeline stages evenly only (its own rules, or those of the file
// isoflop writes for it: parallel::as_written) and the stages are the search's to choose.
// The deepest depth multiple tried for a plan whose family depth fits no layout (deeper_if_unfit): 64 stages.
constexpr int kDeepestDepthMultiple = 64;

bool even_stages_only(const PlanOptions& o) {
  const auto& t = o.search.trainer;
  const auto& pins = o.search.pins;
  return t.loaded() && t.pipeline && !t.uneven_stages && !pins.pp && !o.architecture;
}

// The lowest utilisation a time-like budget's N is sized at: the MFU floor (a floor of 0 sizes it at 1 %).
double floor_utilisation(const PlanOptions& o) { return std::max(o.min_mfu, 0.01); }

// The tensor parallelism a shape's heads are made divisible by: a pinned --tp; else the node's GPUs (at most
// --max-tp), halved until the cluster divides. (shape_for halves it further for a model too small to shape at it.)
int shape_tp(const PlanOptions& o) {
  if (o.search.pins.tp) return *o.search.pins.tp;
  int tp = std::min(o.cluster.gpus_per_node, o.cluster.gpus);
  if (o.search.max_tp) tp = std::min(tp, std::max(1, *o.search.max_tp));
  while (tp > 1 && o.cluster.gpus % tp != 0) tp /= 2;
  return tp;
}

// The shaping tolerance of a single depth's candidates: any d_model near N (the miss is judged after the plan).
constexpr double kAnyShapeMiss = 0.5;

// The depths a shape may take.
struct Depths {
  int multiple = 1;  // layers are a multiple of this
  // Where positive, only the multiples within one multiple of this depth are shaped: left to the aspect ratio
  // alone, the tolerance on N can put the nearest shape in multiples of 25 layers 75 % deeper than the family's
  // (325 x 15360 for 186 x 20480), another model with another pipeline bubble.
  int near_layers = 0;
  int layers = 0;  // where positive, this depth only (a candidate of the deeper search)
};

// The shaped architecture for N parameters, at the depth the family's aspect ratio prefers, or as `depths` says.
// (A depth rounded to a pipeline-friendly multiple for every plan was tried: with TP 8 and 128-wide heads d_model
// moves in steps of 1024, so such depths exist only for some N, the shape jumps with N and the utilisation loop
// loses its fixed point. Only a pinned pipeline narrows the depths, to those its stages run; the depths next to
// the family's are planned apart: deeper_if_better.)
model::Architecture shape_for(double params, const PlanOptions& o, const Depths& depths = {}) {
  const int layer_multiple = depths.multiple, near_layers = depths.near_layers;
  model::ShapeOptions shape;
  shape.reference = o.family;
  shape.tp = shape_tp(o);
  shape.layer_multiple = layer_multiple;
  // A pinned pipeline (--pp, with its --vpp) asks for its stages: only depths that divide over them evenly are
  // shaped, or, where none lands near N and the trainer has them, depths it splits with lighter first and last
  // stages (not every launch format spells those). Pinned first and last stages take the remainder themselves.
  const auto& pins = o.search.pins;
  const bool narrowed = pins.pp && !pins.first_stage_layers && !pins.last_stage_layers;
  const int pp = pins.pp.value_or(1), vpp = pins.vpp.value_or(1);
  if (narrowed) {
    shape.accept_layers = [pp, vpp](int layers) { return layers % (pp * vpp) == 0; };
    shape.depth_rule = "layers that split over the pinned " + std::to_string(pp) + " pipeline stages";
  } else if (!pins.pp && vpp > 1) {
    // Virtual stages pinned alone: the interleaved schedule needs PP >= 2 (or the trainer's minimum) and every
    // stage's layers a multiple of VPP (Narayanan et al. 2021 §2.2), so a depth that splits over that many stages
    // of VPP chunks at least.
    const int least_pp = parallel::least_interleaved_pp(o.search.trainer);
    shape.accept_layers = [vpp, least_pp](int layers) { return layers % (least_pp * vpp) == 0; };
    shape.depth_rule = "layers that split over " + std::to_string(least_pp) +
                       " or more pipeline stages of the pinned " + std::to_string(vpp) + " virtual stages";
  }
  if (depths.layers > 0) {
    // One depth: the d_model whose N is nearest the law's, however far (the deeper search judges the miss of the
    // plan it ends with; within the iteration N moves, and at one depth d_model's steps leave gaps of 8-25 % in N).
    const int only = depths.layers;
    auto accepted = std::move(shape.accept_layers);
    shape.accept_layers = [accepted, only](int layers) { return layers == only && (!accepted || accepted(layers)); };
    shape.depth_rule = (shape.depth_rule.empty() ? "" : shape.depth_rule + " and ") + std::to_string(only) + " layers";
    shape.tolerance = kAnyShapeMiss;
  }
  if (near_layers > 0) {
    auto accepted = std::move(shape.accept_layers);
    shape.accept_layers = [accepted, near_layers, layer_multiple](int layers) {
      return std::abs(layers - near_layers) < layer_multiple && (!accepted || accepted(layers));
    };
    shape.depth_rule = (shape.depth_rule.empty() ? "" : shape.depth_rule + " and ") + "within " +
                       std::to_string(layer_multiple) + " layers of the family's " + std::to_string(near_layers);
  }
  model::ShapeResult shaped;
  const auto shape_at_tp = [&] {
    try {
      return model::shape_architecture(params, shape);
    } catch (const InfeasibleError&) {
      if (!narrowed || !o.search.trainer.uneven_stages) throw;
      model::ShapeOptions uneven = shape;
      uneven.accept_layers = [pp, vpp](int layers) {
        return layers % (pp * vpp) == 0 || parallel::balanced_edge_layers(layers, pp, vpp).first > 0;
      };
      return model::shape_architecture(params, uneven);
    }
  };
  try {
    // A model too small for the node's TP (24.7M parameters have no d_model a multiple of 8 x 128 within 2 %) is
    // shaped for less: it runs on data parallelism, and TP 8 would not speed it up. A pinned TP stands, and so does
    // the node's for the depths near the family's (near_layers, layers), which a finer d_model must not open.
    for (;;) {
      try {
        shaped = shape_at_tp();
        break;
      } catch (const InfeasibleError&) {
        if (o.search.pins.tp || shape.tp <= 1 || near_layers > 0 || depths.layers > 0) throw;
        shape.tp /= 2;
      }
    }
  } catch (const InfeasibleError& e) {
    // The budget sets the parameter count and the cluster the tensor parallelism the shape is made for.
    throw InfeasibleError("the budget's compute-optimal model (" + o.law.name + ") has " + units::format_count(params) +
                          " parameters, and for " + (o.search.pins.tp ? "the pinned (--tp) " : "") +
                          "tensor parallelism " + std::to_string(shape.tp) + " on " + std::to_string(o.cluster.gpus) +
                          " GPUs " + e.what() + "; or give a model (--arch)");
  }
  if (depths.layers > 0)
    for (const auto& other : shaped.alternatives)
      if (std::fabs(other.ratio - 1) < std::fabs(shaped.best.ratio - 1)) shaped.best = other;
  model::Architecture a = shaped.best.architecture;
  a.name = kPlannedModelName;
  return a;
}

// The better of two plans of one budget: one that can be acted on first, then the one whose law sees more
// compute in a time-like budget (its layout runs faster), or that runs a FLOPs budget sooner.
const PlanResult& better_plan(const PlanResult& a, const PlanResult& b) {
  const bool a_ok = a.acceptable(), b_ok = b.acceptable();
  if (a_ok != b_ok) return a_ok ? a : b;
  if (!a_ok) return a;
  // A time-like budget: the compute the layout delivers in the time (the law's C of a plan whose iteration did not
  // settle is not what it runs).
  if (!a.budget.flops) return b.flops > a.flops ? b : a;
  return b.time_s < a.time_s ? b : a;
}

}  // namespace

void Budget::validate() const {
  const int given = (flops ? 1 : 0) + (time_s ? 1 : 0) + (usd ? 1 : 0) + (energy_kwh ? 1 : 0) + (co2e_kg ? 1 : 0);
  if (given != 1)
    throw InputError(std::string(given == 0 ? "missing budget" : "conflicting budgets") +
                     "; give exactly one of compute (FLOPs), time, money, energy or CO2e");
  for (const auto& v : {flops, time_s, usd, energy_kwh, co2e_kg})
    if (v && !(*v > 0 && std::isfinite(*v))) throw InputError("the budget must be positive and finite");
}

double PlanResult::params_ratio_to_target() const {
  return allocation.params > 0 ? model::count_params(job.architecture).total() / allocation.params : 0;
}

namespace {

PlanResult plan_at_depths(const Budget& budget, const PlanOptions& o, const Depths& depths = {}) {
  const int layer_multiple = depths.multiple;
  const double peak = o.cluster.accelerator.peak_16bit_flops * o.cluster.gpus;
  const bool time_like = !budget.flops;
  const double seconds = time_like ? budget_seconds(budget, o) : 0.0;
  // u: the 6N utilisation, 6·N·tokens/s over peak, so that the law's C = 6·N·D = peak·u·seconds gives exactly the
  // tokens the layout runs in the time. It starts at the calibrated GEMM efficiency ceiling.
  double u = o.cluster.accelerator.gemm_efficiency_max > 0 ? o.cluster.accelerator.gemm_efficiency_max : 0.5;
  PlanResult r;
  r.budget = budget;
  r.family = o.architecture ? o.architecture->name : o.family.name;
  r.positions_note = o.architecture ? "" : o.positions_note;
  r.global_batch_tokens = o.global_batch_tokens;
  r.min_mfu = o.min_mfu;
  r.cluster = o.cluster;
  r.search = o.search;
  r.converged = !time_like;
  double law_flops = 0;
  // The batch is chosen afresh for the first iterations, then held: its doublings are discrete steps that
  // would keep the fixed point from settling.
  constexpr int kBatchIterations = 3;
  double batch_tokens = o.global_batch_tokens;
  bool batch_pinned = o.global_batch_pinned;
  std::string batch_note;  // how the held batch was chosen
  // Steps down from the ceiling's utilisation while nothing fits (time-like budgets): at most this many, by this
  // factor.
  constexpr int kInfeasibleSteps = 4;
  constexpr double kInfeasibleStep = 0.75;
  int infeasible_steps = 0;
  for (int i = 0; i < o.max_iterations; ++i) {
    r.iterations = i + 1;
    law_flops = time_like ? peak * u * seconds : *budget.flops;
    parallel::JobSpec job;
    if (o.architecture) {
      // The compute follows the parameters a token passes through: an MoE's active ones (6·N_active·D), so that
      // its tokens are what the budget buys; for a dense model these are all of them.
      r.allocation = scaling::allocate_fixed_params(o.law, law_flops, model::count_params(*o.architecture).active);
      job.architecture = *o.architecture;
    } else {
      r.allocation = scaling::allocate(o.law, law_flops);
      // Past the longest run there is no model to shape: the budget is said, not a shaping failure.
      if (!(r.allocation.tokens <= units::kMaxTrainingTokens)) break;
      job.architecture = shape_for(r.allocation.params, o, depths);
    }
    job.seq = job.architecture.seq > 0 ? job.architecture.seq : o.family.seq;
    job.apply(o.job_settings, o.cluster.accelerator);
    // The trainer whose rules the search applies is the one that runs the job: one name, one trainer.
    if (!o.search.trainer.name.empty()) job.trainer = parallel::kTrainerNames.parse(o.search.trainer.name, "trainer");
    parallel::apply_gradient_precision(job, o.search);
    // With the batch held, an iteration whose job is the last one's (the shape has settled) would repeat its
    // search: the layouts stand, and of the choice only the ceiling, which follows the FLOPs, changes.
    BatchSearch found;
    parallel::JobSpec held = job;
    held.global_batch = r.job.global_batch;
    if (batch_pinned && i > 0 && held == r.job &&
        o.global_batch_sequences.value_or(pinned_batch_sequences(batch_tokens, job.seq, o.cluster.gpus)) ==
            held.global_batch) {
      found.job = std::move(held);
      found.layouts = std::move(r.layouts);
      found.choice = r.batch;
      found.choice.ceiling_tokens = o.batch_rule.ceiling_tokens(law_flops);
    } else {
      found = choose_batch(job, o.cluster, o.search, batch_tokens, batch_pinned, o.batch_rule, law_flops,
                           o.global_batch_sequences);
      // The family's depth that no layout runs under a trainer with even stages only (a prime depth, PP 1 out of
      // memory): this iteration takes the nearest depth in multiples of kEvenStagesDepthMultiple instead.
      if (!found.layouts.feasible() && layer_multiple == 1 && even_stages_only(o)) {
        try {
          job.architecture = shape_for(r.allocation.params, o,
                                       {.multiple = kEvenStagesDepthMultiple, .near_layers = job.architecture.layers});
          found = choose_batch(job, o.cluster, o.search, batch_tokens, batch_pinned, o.batch_rule, law_flops,
                               o.global_batch_sequences);
        } catch (const InfeasibleError&) {
          // no shape at the multiple near N: the family's depth stands, infeasible
        }
      }
    }
    r.job = std::move(found.job);
    r.layouts = std::move(found.layouts);
    if (batch_pinned && !o.global_batch_pinned) {  // held from an earlier iteration: keep how it was chosen
      found.choice.target_tokens = r.batch.target_tokens;
      found.choice.pinned = false;
      found.choice.note = batch_note;
    }
    r.batch = std::move(found.choice);
    if (i + 1 >= kBatchIterations && !batch_pinned) {
      batch_tokens = r.batch.tokens;
      batch_pinned = true;
      batch_note = "held from iteration " + std::to_string(kBatchIterations) + ": " + r.batch.note;
    }
    if (!r.layouts.feasible()) {
      // A time-like budget's first N is the ceiling's: where nothing fits it, a smaller N at a lower utilisation may
      // (a model of 517B at the GEMM ceiling fits no NeMo layout on 16,384 H100s for 30 days; one of 430B does).
      // u steps down towards the MFU floor, where, nothing fitting still, the plan is infeasible.
      const double floor_u = floor_utilisation(o);
      if (time_like && i == infeasible_steps && u > floor_u * (1 + 1e-9) && infeasible_steps < kInfeasibleSteps) {
        ++infeasible_steps;
        u = std::max(floor_u, u * kInfeasibleStep);
        continue;
      }
      break;
    }
    const double new_u = 6 * r.allocation.params * r.layouts.layouts.front().time.tokens_per_s / peak;
    // Damped fixed-point step. The shape (and so the throughput) changes in steps with N, so there may be no
    // exact fixed point and a plain iteration cycles between two architectures; after a few halvings the steps
    // shrink as 1/i, settling at the step. The plan's tokens are then what the layout runs in the time.
    const double weight = i < 4 ? 0.5 : 1.0 / (i - 1);
    if (!time_like || std::fabs(weight * (new_u - u)) < o.mfu_tolerance) {
      r.converged = true;
      break;
    }
    u += weight * (new_u - u);
  }
  // A given model's allocation follows its tokens: D is what the layout runs in the time, exactly, not within the
  // iteration's tolerance (1 % of u, 2.18T against the 2.156T run for Llama 2 70B on 2048 A100s for 35 days).
  if (time_like && o.architecture && r.layouts.feasible()) {
    const double params = model::count_params(*o.architecture).active;
    law_flops = 6 * params * r.layouts.layouts.front().time.tokens_per_s * seconds;
    r.allocation = scaling::allocate_fixed_params(o.law, law_flops, params);
  }
  r.band = scaling::allocation_band(o.band_laws, law_flops);
  if (o.architecture && o.architecture->moe.enabled()) {
    // The laws are fitted to dense models: an MoE's total parameters are not their N, so no loss is predicted
    // (as check says), and the band is of the dense models the same compute would train.
    const model::ParamCount count = model::count_params(*o.architecture);
    r.allocation.params = count.total();
    r.allocation.tokens_per_param = r.allocation.tokens / count.total();
    r.allocation.loss.reset();
    r.band.notes.push_back("an MoE: the laws are fitted to dense models and its " + units::format_count(count.total()) +
                           " total parameters are not their N, so no loss is predicted; the band is of dense models "
                           "at its compute, 6 x " +
                           units::format_count(count.active) + " active parameters x its tokens");
  } else if (const std::string outside = scaling::outside_fit(o.law, r.allocation.params); !outside.empty()) {
    // The plan's N past the model sizes its law was fitted to is the formula extrapolated, as optimal says.
    r.band.notes.push_back(outside);
  }
  // The tokens: the allocation's D for a FLOPs budget; for a time-like budget, what the layout runs in the
  // time (the allocation's D within the iteration's tolerance).
  r.tokens = r.allocation.tokens;
  // Past any run (a thousand times the longest published), and past what a launch's sample counts can hold: the
  // budget is refused rather than planned into years of centuries (1e40 FLOPs gave 1.45e18 days).
  if (!(r.tokens <= units::kMaxTrainingTokens))
    throw InputError("plan: the budget gives " + units::format_scientific(r.tokens) + " training tokens (" +
                     units::format_scientific(law_flops) + " FLOPs), more than the " +
                     units::format_scientific(units::kMaxTrainingTokens) +
                     " a training run may have; give a smaller budget");
  if (!r.layouts.feasible()) {
    r.flops_convention = FlopsConvention::kSixND;
    r.flops = law_flops;
    r.problem = infeasible_problem(r.job, o.cluster, o.search, r.layouts, o.min_mfu, r.batch.ceiling_tokens);
    return r;
  }
  const parallel::StepTime& best = r.layouts.layouts.front().time;
  // The batch held since kBatchIterations was chosen for that iteration's model; the final model may choose
  // another. It is said, not taken: taking it moves the throughput, and so the model, again.
  // The ceiling follows the final FLOPs; the batch held from an earlier iteration may lie above it.
  if (batch_pinned && !o.global_batch_pinned && r.batch.ceiling_tokens > 0 &&
      r.batch.tokens > r.batch.ceiling_tokens * (1 + 1e-9))
    r.batch.note += "; " + units::format_significant((r.batch.tokens / r.batch.ceiling_tokens - 1) * 100, 2) +
                    " % above the final model's ceiling";
  if (batch_pinned && !o.global_batch_pinned) {
    const BatchSearch own = choose_batch(r.job, o.cluster, o.search, o.global_batch_tokens, false, o.batch_rule,
                                         law_flops, o.global_batch_sequences);
    if (own.layouts.feasible() && own.job.global_batch != r.job.global_batch)
      r.batch.note += "; the final model's own choice would be " +
                      units::format_significant(own.choice.tokens / 1e6, 3) + "M tokens (" +
                      units::format_significant(own.layouts.layouts.front().time.mfu * 100, 3) + " % MFU against " +
                      units::format_significant(best.mfu * 100, 3) + " %)";
  }
  r.flops_convention = FlopsConvention::kLayoutModel;
  if (time_like) r.tokens = best.tokens_per_s * seconds;
  r.tokens_per_s = best.tokens_per_s;
  r.time_s = r.tokens / r.tokens_per_s;
  // A batch the user gave that holds more tokens than the whole run: not one step of it would be taken.
  if (o.global_batch_pinned && static_cast<double>(r.job.global_batch) * r.job.seq > r.tokens)
    throw FieldError("global_batch_tokens", units::format_count(static_cast<double>(r.job.global_batch) * r.job.seq) +
                                                " tokens a step are more than the whole run (" +
                                                units::format_count(r.tokens) +
                                                " tokens); accepted: a batch of fewer tokens than the run");
  r.flops = r.tokens * best.model_flops_per_step / static_cast<double>(r.job.global_batch * r.job.seq);
  r.mfu = best.mfu;
  if (r.mfu < o.min_mfu)
    r.problem =
        low_mfu_problem(r.job, o.cluster, o.search, r.layouts.layouts.front(), o.min_mfu, r.batch.ceiling_tokens);
  cost::WhatIfOptions whatif = o.whatif;
  whatif.accelerator = o.cluster.accelerator;
  // The cost counts the same FLOPs at the same MFU, so its time is tokens ÷ tokens/s.
  r.cost = cost::report_run_cost(cost_inputs(o, r.flops, r.mfu), whatif);
  return r;
}

// Whether plan `a` ranks above plan `b` of the same budget: one that can be acted on first (better_plan); of two
// that cannot, one whose layouts fit, then the higher MFU (the nearer to its floor).
bool ranks_above(const PlanResult& a, const PlanResult& b) {
  if (a.acceptable() || b.acceptable()) return a.acceptable() && (!b.acceptable() || &better_plan(b, a) == &a);
  if (a.layouts.feasible() != b.layouts.feasible()) return a.layouts.feasible();
  return a.mfu > b.mfu;
}

// The least gain for which a reshaped model replaces an acceptable plan at the family's depth.
constexpr double kReshapeMinGain = 0.02;

// Whether `a` runs `b`'s budget by more than kReshapeMinGain better: faster for FLOPs, more compute for a time.
bool clearly_better(const PlanResult& a, const PlanResult& b) {
  return a.budget.flops ? a.time_s * (1 + kReshapeMinGain) < b.time_s : a.flops > b.flops * (1 + kReshapeMinGain);
}

// How far from the family's depth a deeper plan's may be: a quarter of it. One multiple either side of 80 layers at
// 64 stages would be 128 layers, 60 % deeper: another model, with a pipeline bubble the plan did not ask for.
constexpr double kDeeperDepthDeparture = 0.25;
// The largest miss of a deeper shape's exact N against the law's, where no plan can be acted on yet.
constexpr double kDeeperShapeTolerance = 0.05;

// Why the family's depth gave way, for the depth note: said of the plan that ran at it.
std::string why_not_family_depth(const PlanResult& at_family, const PlanOptions& o) {
  if (!at_family.layouts.feasible())
    return even_stages_only(o) ? "had no layout to run"
                               : "fits no layout, the pipelines that split it (evenly, or with lighter edge "
                                 "stages) being too shallow to hold the model";
  if (!at_family.acceptable())
    return "ran under the MFU floor (" + units::format_significant(at_family.mfu * 100, 3) + " %)";
  if (!at_family.budget.flops)  // a time-like budget: better_plan ranks by the compute the time buys
    return "ran less compute in the time (" + units::format_scientific(at_family.flops, 4) + " FLOPs)";
  return "ran slower (" + units::format_significant(at_family.time_s / units::kSecondsPerDay, 4) + " days)";
}

// The family's depth may split over no pipeline that holds the model, over none that reaches the MFU floor, or
// over slower ones than a depth next to it: 230 layers fit on no PP up to 16, and split over 32 stages only with
// edge stages heavier than the rest; 153 layers split over 32 stages only unevenly, so without interleaving; a
// trainer that splits its layers evenly only runs a prime depth (103) on PP 1. So the depths in multiples of 4, 8,
// … 64 (and of the stage counts the cluster divides into) either side of the family's, within a quarter of it, are
// planned too, each on its own, and the best plan taken: where the family's plan cannot be acted on, or always for
// a trainer with even stages only. A reshaped plan that cannot be acted on replaces one only
// where no plan at the family's depth has a layout at all (its refusal then offers the remedies).
PlanResult deeper_if_better(const Budget& budget, const PlanOptions& o, PlanResult at_family) {
  const auto& t = o.search.trainer;
  // A trainer with uneven stages runs the family's depth on any pipeline: its plan stands where it can be acted
  // on (a depth an interleaved pipeline splits can still run faster: 84 layers at 51.6 % for the 3,360-A100 month's
  // 103 at 49.0 %, a reshaping left to the user's --pp, --vpp or --arch).
  if (o.architecture || o.search.pins.pp || (t.loaded() && !t.pipeline) ||
      (!even_stages_only(o) && at_family.acceptable()))
    return at_family;
  // Powers of two, and the stage counts the cluster divides into that are not (100,000 GPUs = 8 x 12,500 split
  // over 5, 10, 20, 25 or 50 stages, never 32 or 64).
  std::vector<int> multiples;
  for (int multiple = kEvenStagesDepthMultiple; multiple <= kDeepestDepthMultiple; multiple *= 2)
    multiples.push_back(multiple);
  const long long per_tp = o.cluster.gpus / std::max(1, shape_tp(o));
  for (int d = kEvenStagesDepthMultiple + 1; d <= kDeepestDepthMultiple; ++d)
    if (per_tp % d == 0 && (d & (d - 1)) != 0) multiples.push_back(d);
  std::sort(multiples.begin(), multiples.end());
  const bool family_fits = at_family.layouts.feasible(), family_acceptable = at_family.acceptable();
  const std::string why = why_not_family_depth(at_family, o);
  PlanResult best = std::move(at_family);
  std::set<int> planned;
  // The candidate depths next to `family_layers`; the largest listed multiple a depth is of names it in the note.
  auto search = [&](int family_layers) {
    std::map<int, int> depths;  // depth -> its largest multiple
    for (const int m : multiples)
      for (const int d : {family_layers / m * m, (family_layers / m + 1) * m})
        if (d > 0 && d != family_layers && std::abs(d - family_layers) <= kDeeperDepthDeparture * family_layers)
          depths[d] = m;
    for (const auto& [layers, multiple] : depths) {
      if (!planned.insert(layers).second) continue;
      PlanResult deeper;
      try {
        deeper = plan_at_depths(budget, o, {.layers = layers});
      } catch (const InfeasibleError&) {
        continue;  // no shape at this depth
      }
      // The plan's N within 2 % of the law's, or 5 % where the family's plan cannot be acted on (with TP 8 and 128-wide
      // heads d_model moves in steps of 1024, and at 2 % no depth near 186 splits over 20 or 25 stages), or for a
      // time-like budget, whose N moves with the throughput (its plans are ranked by the compute they deliver,
      // whatever their N). An IsoFLOP curve is flat at its minimum (Hoffmann et al. 2022 Fig. 3): 5 % off N_opt
      // costs about 0.01 % in loss at the same compute.
      const double tolerance =
          !budget.flops || !family_acceptable ? kDeeperShapeTolerance : model::ShapeOptions{}.tolerance;
      if (!(std::fabs(deeper.params_ratio_to_target() - 1) <= tolerance)) continue;
      if (!deeper.layouts.feasible() || !ranks_above(deeper, best) || (!deeper.acceptable() && family_fits)) continue;
      // Over an acceptable plan at the family's own depth, a reshaped model must gain more than the noise of the
      // model's constants: a 0.6 % gain took 70 layers on PP 1 for the family's 86 (an aspect ratio of 161).
      if (best.depth_note.empty() && best.acceptable() && !clearly_better(deeper, best)) continue;
      // The multiple the note names: the pipeline's stages x virtual stages where they split the depth evenly into
      // more than one layer each, else its stages, else the multiple the depth was found by.
      const auto& first = deeper.layouts.layouts.front().layout;
      const int chunks = first.pp * first.vpp;
      const int named = chunks > 1 && chunks < layers && layers % chunks == 0 ? chunks
                        : first.pp > 1 && layers % first.pp == 0              ? first.pp
                                                                              : multiple;
      deeper.depth_note = "layers in multiples of " + std::to_string(named) + ": " +
                          (even_stages_only(o) ? parallel::rules_holder(t, "uneven_stages") +
                                                     " splits them over pipeline stages evenly only, and "
                                               : std::string()) +
                          "the family's depth (" + std::to_string(family_layers) + " layers) " + why;
      best = std::move(deeper);
    }
  };
  const int family_layers = shape_for(best.allocation.params, o).layers;
  search(family_layers);
  // A time-like budget sets N by the throughput: a family plan with no layout stopped at its first iteration, with
  // the ceiling's utilisation and so too large an N; the family's depth at the N of the plan found is searched too.
  // Where no plan was found either, the N at the MFU floor's utilisation bounds it from below.
  if (!budget.flops && !family_fits) {
    double params = best.allocation.params;
    if (best.depth_note.empty()) {
      const double floor_flops =
          o.cluster.accelerator.peak_16bit_flops * o.cluster.gpus * floor_utilisation(o) * budget_seconds(budget, o);
      params = scaling::allocate(o.law, floor_flops).params;
    }
    try {
      const int again = shape_for(params, o).layers;
      if (again != family_layers) search(again);
    } catch (const InfeasibleError&) {
      // no family shape at that N: the first search stands
    }
  }
  return best;
}

}  // namespace

PlanResult make_plan(const Budget& budget, const PlanOptions& o) {
  budget.validate();
  o.cluster.validate();
  if (!(o.min_mfu >= 0 && o.min_mfu < 1)) throw FieldError("min_mfu", "must be in [0, 1)");
  // The family's depth, then the depths next to it (a trainer that splits layers over its stages evenly only runs
  // a prime depth on PP 1; multiples of 4 open PP 2 and 4 at least, and deeper ones more).
  return deeper_if_better(budget, o, plan_at_depths(budget, o));
}

}  // namespace isoflop::plan
