// The main job: a budget → the compute-optimal N and D (with the band across laws) → an architecture for N →
// the best layouts on the cluster → the run's time, energy, carbon and money, with the 4Ms what-if. With a time-like
// budget (GPU-days, dollars, energy, CO2e) the tokens are what the best layout's throughput affords, iterated
// until the plan is self-consistent.
//
// One convention: the plan's FLOPs, MFU and cost count the model FLOPs the chosen layout counts per step
// (Korthikanti et al. 2022 eq. 7: 6N per token plus attention and logits), so its time is tokens ÷ the layout's
// tokens/s. Only the allocation (the law's answer) counts C = 6·N·D, as the laws were fitted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/enum_names.hpp"
#include "cost/cost_report.hpp"
#include "cost/run_cost.hpp"
#include "cost/whatif.hpp"
#include "model/shape.hpp"
#include "parallel/search.hpp"
#include "plan/batch.hpp"
#include "plan/remedy.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::plan {

// Exactly one budget kind is given.
// The name of the architecture a plan shapes (it has no catalog name); pages title it by its size instead.
inline constexpr std::string_view kPlannedModelName = "planned";

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
  std::vector<catalog::LawSpec> band_laws;  // the band: the allocation law first, then the catalog's others
  parallel::ClusterSpec cluster;
  catalog::Node node;                  // for node power
  model::Architecture family;          // reference family for shaping (e.g. chinchilla-70b)
  std::string positions_note;          // why the family's positions gave way to the trainer's, or ""
  // A given model instead of a shaped one: the allocation is its exact parameter count and D = C/(6N).
  std::optional<model::Architecture> architecture;
  double global_batch_tokens = 4.0e6;  // target tokens per iteration; ~MT-NLG's 1920 × 2048
  bool global_batch_pinned = false;    // the user gave the batch: it does not grow
  // Exactly these sequences per step (a proposal's stated batch), where a batch in tokens is rounded to the
  // count sharing the most factors with the GPUs. Implies pinned.
  std::optional<long long> global_batch_sequences;
  BatchRule batch_rule;                // the ceiling the batch grows to (cost.yaml plan.batch_*)
  double min_mfu = 0.25;               // below this MFU the plan is refused (cost.yaml plan.min_mfu)
  parallel::SearchOptions search;
  parallel::JobSettings job_settings;  // attention kernel, GEMM precision, dropout of the planned job
  // Power, PUE, grid, prices and embodied carbon of the run (lib/cost/run_cost.hpp). The plan fills in the
  // work, the accelerator count, peak and utilisation; node power comes from `node` and the TDP from the
  // accelerator unless given here.
  cost::RunCostInputs run_cost;
  cost::WhatIfOptions whatif;  // the 4Ms levers; the accelerator is the cluster's
  int max_iterations = 40;
  double mfu_tolerance = 1e-3;  // stop when the 6N utilisation (6·N·tokens/s over peak) moves less than this
};

// How the plan counts FLOPs: the chosen layout's model FLOPs per step, or 6·N·D when no layout fits.
ISOFLOP_NAMED_ENUM(FlopsConvention, (kLayoutModel, "layout-model-flops"), (kSixND, "6nd"));

// The plan document: what it was asked (budget, family, batch target) and what it found. A plan contains the
// same structs the other commands print: an allocation and the band (`optimal`), a job, cluster and search
// result (`layout`, its architecture as `arch` prints it) and a run cost (`cost`).
struct PlanResult {
  Budget budget;                     // as given
  std::string family;                // reference family the architecture was shaped after, or the given model
  double global_batch_tokens = 0;    // target tokens per iteration
  FlopsConvention flops_convention = FlopsConvention::kLayoutModel;
  double flops = 0;                  // the run's FLOPs in flops_convention: tokens × the layout's FLOPs per token
  double tokens = 0;                 // training tokens: the allocation's D, or what the layout runs in a time budget
  double tokens_per_s = 0;           // the best layout's throughput (0 when nothing fits)
  double time_s = 0;                 // tokens ÷ tokens_per_s (0 when nothing fits)
  double mfu = 0;                    // the best layout's predicted MFU, used for the cost (0 when nothing fits)
  double min_mfu = 0;                // the floor below which the plan is refused
  BatchChoice batch;                 // the global batch and why
  std::optional<PlanProblem> problem;  // why the plan cannot be acted on (MFU under the floor, nothing fits)
  int iterations = 0;
  bool converged = true;
  scaling::Allocation allocation;
  scaling::AllocationBand band;
  parallel::JobSpec job;             // the shaped architecture, sequence and global batch
  std::string depth_note;            // why the depth is not the family's (a trainer with even stages only), or ""
  std::string positions_note;        // why the positions are not the family's (the trainer builds others), or ""
  parallel::ClusterSpec cluster;
  parallel::SearchOptions search;    // the search as it ran (pins and limits)
  parallel::SearchResult layouts;    // ranked layouts, or why nothing fits
  std::optional<cost::CostReport> cost;  // time, energy, carbon, money and the 4Ms; unset when nothing fits

  bool feasible() const { return layouts.feasible(); }
  bool acceptable() const { return feasible() && !problem; }
  // Exact parameters of the shaped architecture over the allocation's target.
  double params_ratio_to_target() const;
  bool operator==(const PlanResult&) const = default;
};

// Runs the plan. When no layout fits, the result says why (layouts.infeasible, problem) and carries no cost;
// when the MFU is under the floor it carries the cost and the problem. The caller decides what that means
// (the command prints the document and exits 1).
PlanResult make_plan(const Budget& budget, const PlanOptions& options);

}  // namespace isoflop::plan
