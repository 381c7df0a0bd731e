// Options shared by `layout`, `plan` and `cost`: the cluster and the layout pins, parsed into library structs.
#pragma once

#include <string>
#include <vector>

#include "app/cli.hpp"
#include "parallel/cluster.hpp"
#include "parallel/layout_request.hpp"

namespace isoflop::app {

const OptionList& cluster_options();  // --gpu --node --gpus --nodes --gpus-per-node
// One pin per knob of the table of dimensions (--tp … --sequence-parallel), --trainer, the time model's overlap
// and precision choices, --max-tp, --max-cp, --objective, --top.
OptionList layout_options();

parallel::ClusterRequest cluster_request(const po::variables_map& vm);
parallel::JobSettings job_settings(const po::variables_map& vm);  // --attention --precision --dropout
// The pins, --trainer, overlaps, --max-tp, --max-cp, --objective and --top as given (parallel/layout_request.hpp).
parallel::LayoutRequest layout_request(const po::variables_map& vm);

// "no layout fits …; to fit: --gpus 4480 (about …), or an accelerator with at least 1357 GB of memory (--gpu)".
std::string infeasible_message(const parallel::Infeasibility& infeasible);
// The same for a plan's problem (MFU under the floor): its reason and the changes that would pass.
std::string infeasible_message(const std::string& reason, const std::vector<parallel::SuggestedChange>& changes,
                               const char* lead = parallel::kToFit);

}  // namespace isoflop::app
