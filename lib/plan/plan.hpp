// The main job: a budget → the compute-optimal N and D (with the band across laws) → an architecture for N →
// the best layouts on the cluster → the run's time, energy, carbon and money, with the 4Ms what-if. With a time-like
// budget (GPU-days, dollars, energy, CO2e) the utilisation is the best layout's predicted MFU, iterated until the plan
// is self-consistent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "cost/cost_report.hpp"
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
  bool operator==(const Budget&) const = default;
};

struct PlanOptions {
  catalog::LawSpec law;                     // the law used for the allocation
  std::vector<catalog::LawSpec> band_laws;  // every law, for the band
  parallel::ClusterSpec cluster;
  catalog::Node node;                  // for node power
  model::Architecture family;          // reference family for shaping (e.g. chinchilla-70b)
  // A given model instead of a shaped one: the allocation is its exact parameter count and D = C/(6N).
  std::optional<model::Architecture> architecture;
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

// The plan document: what it was asked (budget, family, batch target) and what it found. A plan contains the
// same structs the other commands print: an allocation and the band (`optimal`), a job, cluster and search
// result (`layout`, its architecture as `arch` prints it) and a run cost (`cost`).
struct PlanResult {
  Budget budget;                     // as given
  std::string family;                // reference family the architecture was shaped after, or the given model
  double global_batch_tokens = 0;    // target tokens per iteration
  double flops = 0;                  // the budget in FLOPs (after the utilisation iteration)
  double mfu = 0;                    // the best layout's predicted MFU, used for the cost (0 when nothing fits)
  int iterations = 0;
  bool converged = true;
  scaling::Allocation allocation;
  scaling::AllocationBand band;
  parallel::JobSpec job;             // the shaped architecture, sequence and global batch
  parallel::ClusterSpec cluster;
  parallel::SearchOptions search;    // the search as it ran (pins and limits)
  parallel::SearchResult layouts;    // ranked layouts, or why nothing fits
  std::optional<cost::CostReport> cost;  // time, energy, carbon, money and the 4Ms; unset when nothing fits

  bool feasible() const { return layouts.feasible(); }
  // Exact parameters of the shaped architecture over the allocation's target.
  double params_ratio_to_target() const;
  bool operator==(const PlanResult&) const = default;
};

// Runs the plan. When no layout fits, the result says why (layouts.infeasible) and carries no cost; the
// caller decides what that means (the command prints the document and exits 1).
PlanResult make_plan(const Budget& budget, const PlanOptions& options);

}  // namespace isoflop::plan
