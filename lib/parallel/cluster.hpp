// Building a cluster description from the catalog: an accelerator, its node (given or the accelerator's
// reference node) for GPUs per node and bandwidths, and a count of GPUs or nodes.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "parallel/layout.hpp"

namespace isoflop::parallel {

struct ClusterRequest {
  std::optional<std::string> gpu;    // accelerator id (--gpu)
  std::optional<std::string> node;   // node id (--node); default: the accelerator's reference node
  std::optional<long long> gpus;     // --gpus
  std::optional<long long> nodes;    // --nodes
  std::optional<long long> gpus_per_node;  // --gpus-per-node, overriding the node's
};

struct ResolvedCluster {
  ClusterSpec spec;
  std::string note;  // e.g. "node dgx-a100 (reference node of a100-sxm4-80gb) supplies 8 GPUs per node and bandwidths"
};

// Throws InputError naming the option: unknown ids (with "did you mean"), a node whose accelerator differs
// from --gpu, neither --gpus nor --nodes, GPUs not a whole number of nodes.
ResolvedCluster resolve_cluster(const catalog::Catalog& catalog, const ClusterRequest& request);

}  // namespace isoflop::parallel
