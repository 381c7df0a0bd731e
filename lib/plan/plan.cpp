// The plan pipeline: allocate → shape → search → cost, iterated on the utilisation for time-like budgets.
#include "plan/plan.hpp"

#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "model/params.hpp"

namespace isoflop::plan {
namespace {

constexpr double kSecondsPerHour = 3600.0;

// The global batch (sequences) nearest the target whose divisors suit the cluster: among batches within
// a factor 1.5 of the target, the one sharing the most factors with the GPU count, then the nearest.
long long choose_global_batch(double target_sequences, int gpus) {
  const long long lo = std::max<long long>(1, static_cast<long long>(target_sequences / 1.5));
  const long long hi = std::max<long long>(lo, static_cast<long long>(target_sequences * 1.5));
  long long best = lo, best_gcd = 0;
  double best_distance = INFINITY;
  for (long long b = lo; b <= hi; ++b) {
    const long long g = std::gcd(b, static_cast<long long>(gpus));
    const double distance = std::fabs(std::log(b / target_sequences));
    if (g > best_gcd || (g == best_gcd && distance < best_distance)) {
      best = b;
      best_gcd = g;
      best_distance = distance;
    }
  }
  return best;
}

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
    if (!(c.price_per_gpu_hour_usd > 0)) throw FieldError("budget_usd", "a money budget needs a price per GPU-hour");
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

// The shaped architecture for N parameters, at the depth the family's aspect ratio prefers. (A depth rounded
// to a pipeline-friendly multiple was tried: with TP 8 and 128-wide heads d_model moves in steps of 1024, so
// such depths exist only for some N, the shape jumps with N and the utilisation loop loses its fixed point.)
model::Architecture shape_for(double params, const PlanOptions& o) {
  model::ShapeOptions shape;
  shape.reference = o.family;
  shape.tp = std::min(o.cluster.gpus_per_node, o.cluster.gpus);
  while (shape.tp > 1 && o.cluster.gpus % shape.tp != 0) shape.tp /= 2;
  model::Architecture a = model::shape_architecture(params, shape).best.architecture;
  a.name = "planned";
  return a;
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

PlanResult make_plan(const Budget& budget, const PlanOptions& o) {
  budget.validate();
  o.cluster.validate();
  const double peak = o.cluster.accelerator.peak_16bit_flops * o.cluster.gpus;
  const bool time_like = !budget.flops;
  const double seconds = time_like ? budget_seconds(budget, o) : 0.0;
  // Start from the calibrated GEMM efficiency ceiling; the loop replaces it with the layout's MFU.
  double mfu = o.cluster.accelerator.gemm_efficiency_max > 0 ? o.cluster.accelerator.gemm_efficiency_max : 0.5;
  PlanResult r;
  r.budget = budget;
  r.family = o.architecture ? o.architecture->name : o.family.name;
  r.global_batch_tokens = o.global_batch_tokens;
  r.cluster = o.cluster;
  r.search = o.search;
  r.converged = !time_like;
  for (int i = 0; i < o.max_iterations; ++i) {
    r.iterations = i + 1;
    r.flops = time_like ? peak * mfu * seconds : *budget.flops;
    r.job = {};
    if (o.architecture) {
      r.allocation = scaling::allocate_fixed_params(o.law, r.flops, model::count_params(*o.architecture).total());
      r.job.architecture = *o.architecture;
    } else {
      r.allocation = scaling::allocate(o.law, r.flops);
      r.job.architecture = shape_for(r.allocation.params, o);
    }
    r.job.seq = r.job.architecture.seq > 0 ? r.job.architecture.seq : o.family.seq;
    r.job.global_batch = choose_global_batch(o.global_batch_tokens / static_cast<double>(r.job.seq), o.cluster.gpus);
    r.layouts = parallel::search_layouts(r.job, o.cluster, o.search);
    if (!r.layouts.feasible()) break;
    const double new_mfu = r.layouts.layouts.front().time.mfu;
    if (!time_like || std::fabs(new_mfu - mfu) < o.mfu_tolerance) {
      mfu = new_mfu;
      r.converged = true;
      break;
    }
    // Damped fixed-point step: the shape (and so the MFU) changes in steps with N, which can make the
    // plain iteration cycle between two architectures.
    mfu = 0.5 * (mfu + new_mfu);
  }
  r.band = scaling::allocation_band(o.band_laws, r.flops);
  if (!r.layouts.feasible()) {
    r.mfu = 0;
    return r;
  }
  r.mfu = r.layouts.layouts.front().time.mfu;
  cost::WhatIfOptions whatif = o.whatif;
  whatif.accelerator = o.cluster.accelerator;
  r.cost = cost::report_run_cost(cost_inputs(o, r.flops, mfu), whatif);
  return r;
}

}  // namespace isoflop::plan
