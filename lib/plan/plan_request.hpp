// What a user asks of a plan, by name — a budget, a law, a reference family, a cluster, layout pins, energy and
// price choices — resolved against the catalog into PlanOptions. The command line fills a PlanRequest; a
// library caller may fill PlanOptions directly.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "cost/energy_request.hpp"
#include "parallel/cluster.hpp"
#include "model/architecture.hpp"
#include "plan/plan.hpp"
#include "scaling/query.hpp"

namespace isoflop::plan {

// The budget as the user states it: one of these (Budget::validate refuses none or several).
struct BudgetRequest {
  std::optional<double> flops;     // training compute, FLOPs
  std::optional<double> days;      // wall-clock on the whole cluster, days
  std::optional<double> time_s;    // the same in seconds
  std::optional<double> usd;       // money
  std::optional<double> energy_j;  // facility energy, joules
  std::optional<double> co2e_kg;   // gross emissions
};

// The budget in the plan's units (seconds, kWh).
Budget make_budget(const BudgetRequest& request);

struct PlanRequest {
  scaling::LawChoice law;                 // the allocation's law (one: all_laws is refused)
  std::optional<std::string> family;      // catalog model whose shape the architecture follows (chinchilla-70b)
  // A given model, planned as it is instead of shaped (the caller reads it: doc::resolve_architecture).
  std::optional<model::Architecture> architecture;
  std::optional<double> global_batch_tokens;  // given: the batch is pinned (it does not grow)
  std::optional<long long> global_batch_sequences;  // given: exactly these sequences (pinned, not rounded)
  std::optional<double> min_mfu;              // the MFU floor (default cost.yaml plan.min_mfu)
  parallel::ClusterRequest cluster;
  parallel::SearchOptions search;
  parallel::JobSettings job_settings;
  cost::EnergyRequest energy;
};

struct ResolvedPlan {
  PlanOptions options;
  std::string cluster_note;  // where the node, GPUs per node and bandwidths came from
};

// Throws FieldError naming the request's field ("law", "family", "gpu", …) for a name the catalog lacks, and
// FieldError("family") when a family is named beside a given architecture.
ResolvedPlan resolve_plan(const catalog::Catalog& catalog, const PlanRequest& request);

// A reference family with the positions `trainer` builds: one whose encoding the trainer's model code lacks
// (Chinchilla's Transformer-XL relative positions under Megatron-LM) is shaped with rotary, where the trainer builds
// rotary, so that the launch file runs the model shaped. Returns why (the plan's positions_note), or "" unchanged.
std::string use_trainer_positions(model::Architecture& family, const catalog::TrainerRules& trainer);

// A plan and what the caller may want to say about it.
struct PlannedRun {
  PlanResult result;
  std::string cluster_note;            // where the node, GPUs per node and bandwidths came from
  std::optional<std::string> warning;  // the utilisation did not settle
};

// Resolves the request (the search's trainer by name, default megatron; see resolve_plan) and plans `budget`.
PlannedRun plan_budget(const catalog::Catalog& catalog, const Budget& budget, PlanRequest request);

}  // namespace isoflop::plan
