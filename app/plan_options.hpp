// The plan command's options and its run, shared with emit (which plans first when it is given no --from).
#pragma once

#include <string>

#include "app/cli.hpp"
#include "plan/plan.hpp"

namespace isoflop::app {

// Budget, law, family, architecture, batch, energy, what-if, cluster and layout options.
OptionList plan_options();

// Runs the plan those options ask for; `cluster_note` (if given) gets where the cluster's figures came from.
plan::PlanResult plan_from_options(const po::variables_map& vm, const catalog::Catalog& cat, std::string* cluster_note);

}  // namespace isoflop::app
