// What a proposal amounts to, computed once before the rules look at it: its exact parameters, tokens and
// compute, the job and cluster, and the plan the library makes of it (memory, step time, MFU, cost) with the
// proposal's architecture, layout pins, batch, grid and prices.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "check/proposal.hpp"
#include "parallel/layout.hpp"
#include "plan/plan.hpp"

namespace isoflop::check {

struct Facts {
  const catalog::Catalog* catalog = nullptr;
  const Proposal* proposal = nullptr;
  double params = 0;                        // exact parameters of the architecture
  double tokens = 0;
  double flops_6nd = 0;  // 6·N·D, the compute the laws were fitted in (an MoE: N active)
  std::optional<double> unique_tokens;
  std::optional<model::Architecture> architecture;
  std::optional<parallel::JobSpec> job;
  std::optional<parallel::ClusterSpec> cluster;
  std::optional<parallel::Layout> proposed_layout;  // when the proposal pins TP, PP and DP (or is a plan)
  std::optional<plan::PlanResult> plan;     // unset when the layout is invalid for every search (plan_error)
  std::string plan_error;
};

// Throws InputError "source:line: field: what" for a name the catalog lacks or a value out of range.
Facts assess(const catalog::Catalog& catalog, const Proposal& proposal);

}  // namespace isoflop::check
