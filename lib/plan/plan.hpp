// The main job: a budget → the compute-optimal N and D (with the band across laws) → an architecture for N →
// the best layouts on the cluster → the run's time, energy, carbon and money, with the 4Ms what-if. With a time-like
// budget (GPU-days, dollars, energy, CO2e) the utilisation is the best layout's predicted MFU, iterated until the plan
// is self-consistent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "cost/run_cost.hpp"
#include "cost/whatif.hpp"
#include "model/shape.hpp"
#include "parallel/search.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::plan {

// Exactly one budget kind is given.
struct Budget {
  std::optional<double> flops;       // training compute, FLOPs
  std::optional<double> time_s;      // wall-clock on the whole cluster (--days, --time)
  std::optional<double> usd;         // accelerator-hours × price (needs a price per GPU-hour)
  std::optional<double> energy_kwh;  // facility energy
  std::optional<double> co2e_kg;     // gross emissions
  void validate() const;
};

struct PlanOptions {
  catalog::LawSpec law;                     // the law used for the allocation
  std::vector<catalog::LawSpec> band_laws;  // every law, for the band
  parallel::ClusterSpec cluster;
  catalog::Node node;                  // for node power
  model::Architecture family;          // reference family for shaping (e.g. chinchilla-70b)
  double global_batch_tokens = 4.0e6;  // target tokens per iteration; ~MT-NLG's 1920 × 2048
  parallel::SearchOptions search;
  // Power, PUE, grid, prices and embodied carbon of the run (lib/cost/run_cost.hpp). The plan fills in the
  // work, the accelerator count, peak and utilisation; node power comes from `node` and the TDP from the
  // accelerator unless given here.
  cost::RunCostInputs run_cost;
  cost::WhatIfOptions whatif;  // the 4Ms levers; the accelerator is the cluster's
  int max_iterations = 20;
  double mfu_tolerance = 1e-3;  // stop when the MFU moves less than this
};

struct PlanResult {
  double flops = 0;  // the budget in FLOPs (after the utilisation iteration)
  scaling::Allocation allocation;
  scaling::AllocationBand band;
  model::ShapeResult shape;
  parallel::JobSpec job;
  parallel::SearchResult layouts;
  cost::RunCostInputs cost_inputs;  // what the cost was computed from
  cost::RunCost cost;
  std::vector<cost::WhatIfRow> whatif;  // the 4Ms table: baseline, model, machine, mechanization, map, all
  double mfu = 0;                       // the best layout's predicted MFU, used for the cost
  int iterations = 0;
  bool converged = true;
};

PlanResult make_plan(const Budget& budget, const PlanOptions& options);

}  // namespace isoflop::plan
