// Options shared by `layout` and `plan`: the cluster and the layout pins, parsed into library structs.
#pragma once

#include "app/cli.hpp"
#include "parallel/cluster.hpp"
#include "parallel/search.hpp"

namespace isoflop::app {

void add_cluster_options(po::options_description& options);  // --gpu --node --gpus --nodes --gpus-per-node
void add_layout_options(po::options_description& options);   // --tp --pp --dp --ep --vpp --micro-batch ...

parallel::ClusterRequest cluster_request(const po::variables_map& vm);
parallel::SearchOptions search_options(const po::variables_map& vm);

}  // namespace isoflop::app
