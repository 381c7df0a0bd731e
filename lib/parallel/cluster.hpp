// Building a cluster description from the catalog: an accelerator, its node (given or the accelerator's
// reference node) for GPUs per node and bandwidths, and a count of GPUs or nodes.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "parallel/layout.hpp"

namespace isoflop::parallel {

struct ClusterRequest {
  std::optional<std::string> gpu;    // accelerator id
  std::optional<std::string> node;   // node id; default: the accelerator's reference node
  std::optional<long long> gpus;     // total accelerators
  std::optional<long long> nodes;    // or whole nodes
  std::optional<long long> gpus_per_node;  // overriding the node's
  // Layouts place whole nodes; `cost` prices any GPU count (its node method bills the nodes they occupy).
  bool whole_nodes = true;
  bool operator==(const ClusterRequest&) const = default;
};

struct ResolvedCluster {
  ClusterSpec spec;
  std::string note;  // e.g. "node dgx-a100 (reference node of a100-sxm4-80gb) supplies 8 GPUs per node and bandwidths"
};

// The most GPUs a cluster may have: past any built, and far below int's range.
constexpr long long kMaxClusterGpus = 100'000'000;

// The GPU count of a cluster given as `gpus` or as `nodes` of `gpus_per_node` (one of them), range-checked before
// any product: FieldError naming "gpus" or "nodes" (both given, neither, out of 1 … kMaxClusterGpus GPUs).
int cluster_gpus(std::optional<long long> gpus, std::optional<long long> nodes, int gpus_per_node);

// Throws FieldError naming the field (gpu, node, gpus, nodes, gpus_per_node): unknown ids (with "did you mean"), a node
// whose accelerator differs from the accelerator, neither a GPU nor a node count, GPUs not a whole number of nodes
// (unless !whole_nodes).
ResolvedCluster resolve_cluster(const catalog::Catalog& catalog, const ClusterRequest& request);

}  // namespace isoflop::parallel
