// Options shared by `layout`, `plan` and `cost`: the cluster and the layout pins, parsed into library structs.
#pragma once

#include <string>

#include "app/cli.hpp"
#include "parallel/cluster.hpp"
#include "parallel/search.hpp"

namespace isoflop::app {

const OptionList& cluster_options();  // --gpu --node --gpus --nodes --gpus-per-node
// One pin per knob of the table of dimensions (--tp … --sequence-parallel), --trainer, the time model's overlap
// and precision choices, --max-tp, --max-cp, --objective, --top.
OptionList layout_options();

parallel::ClusterRequest cluster_request(const po::variables_map& vm);
parallel::JobSettings job_settings(const po::variables_map& vm);  // --attention --precision --dropout
// The search options given on the command line, over the defaults.
parallel::SearchOptions search_options(const po::variables_map& vm);
// Changes `options` by the search options given on the command line (pins, --trainer by name, --max-tp, …).
void apply_search_options(const po::variables_map& vm, parallel::SearchOptions& options);
// Loads the named trainer's rules (default megatron) from the catalog into `options`.
void resolve_trainer(const catalog::Catalog& catalog, parallel::SearchOptions& options);

// "no layout fits …; to fit: --gpus 4480 (about …), or an accelerator with at least 1357 GB of memory (--gpu)".
std::string infeasible_message(const parallel::Infeasibility& infeasible);

}  // namespace isoflop::app
