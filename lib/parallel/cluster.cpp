// Cluster resolution from catalog ids and counts.
#include "parallel/cluster.hpp"

#include "core/error.hpp"

namespace isoflop::parallel {

ResolvedCluster resolve_cluster(const catalog::Catalog& cat, const ClusterRequest& r) {
  if (!r.gpu && !r.node)
    throw FieldError("gpu", "missing accelerator; name an accelerator or a node (see 'isoflop catalog hardware')");
  const catalog::Node* node = nullptr;
  const catalog::Accelerator* acc = nullptr;
  ResolvedCluster out;
  if (r.node) {
    node = &cat.node(*r.node);
    acc = &cat.accelerator(node->accelerator, "node");
    if (r.gpu && *r.gpu != node->accelerator)
      throw FieldError("gpu", "'" + *r.gpu + "' differs from node " + node->name + "'s accelerator '" +
                                  node->accelerator + "'; name the accelerator or the node, not both");
    out.note = "node " + node->name + " supplies " + std::to_string(node->gpus_per_node) + " GPUs per node and bandwidths";
  } else {
    acc = &cat.accelerator(*r.gpu);
    if (acc->reference_node.empty()) {
      // No catalog node holds it (MI300X, TPU v4): the user's own node, in an overlay, says its bandwidths.
      std::string nodes;
      for (const auto& n : cat.nodes) nodes += (nodes.empty() ? "" : ", ") + n.name + " (" + n.accelerator + ")";
      throw FieldError("gpu",
                       "'" + acc->name +
                           "' has no reference node in the catalog, and its bandwidths come "
                           "from a node: define one in a --catalog overlay (nodes: name, accelerator, gpus_per_node, "
                           "bandwidths; see 'isoflop catalog hardware') and name it with --node; the catalog's: " +
                           nodes);
    }
    node = &cat.node(acc->reference_node, "gpu");
    out.note = "node " + node->name + " (reference node of " + acc->name + ") supplies " +
               std::to_string(node->gpus_per_node) + " GPUs per node and bandwidths";
  }
  ClusterSpec& c = out.spec;
  c.accelerator = *acc;
  c.node_name = node->name;
  c.gpus_per_node = node->gpus_per_node;
  if (r.gpus_per_node) {
    if (*r.gpus_per_node < 1) throw FieldError("gpus_per_node", "must be positive");
    c.gpus_per_node = static_cast<int>(*r.gpus_per_node);
    if (c.gpus_per_node != node->gpus_per_node)
      out.note = "node " + node->name + " supplies bandwidths and power per GPU, in nodes of " +
                 std::to_string(c.gpus_per_node) + " GPUs (--gpus-per-node; the catalog's has " +
                 std::to_string(node->gpus_per_node) + ")";
  }
  c.intra_node_bandwidth_bytes_per_s = node->intra_node_bandwidth_bytes_per_s;
  // The node's NICs are shared by its GPUs: per-GPU network bandwidth.
  c.inter_node_bandwidth_bytes_per_s = node->inter_node_bandwidth_bytes_per_s / node->gpus_per_node;
  c.gpus = cluster_gpus(r.gpus, r.nodes, c.gpus_per_node);
  if (r.whole_nodes)
    c.validate();
  else
    c.validate_node();
  return out;
}

int cluster_gpus(std::optional<long long> gpus, std::optional<long long> nodes, int gpus_per_node) {
  if (gpus && nodes) throw FieldError("nodes", "conflicts with a GPU count; give only one");
  if (!gpus && !nodes) throw FieldError("gpus", "missing cluster size; give a GPU count or a node count");
  if (gpus_per_node < 1) throw FieldError("gpus_per_node", "must be positive, got " + std::to_string(gpus_per_node));
  if (nodes) {
    const long long most = kMaxClusterGpus / gpus_per_node;  // checked before the product can overflow
    if (*nodes < 1) throw FieldError("nodes", "must be positive, got " + std::to_string(*nodes));
    if (*nodes > most)
      throw FieldError("nodes", std::to_string(*nodes) + " nodes of " + std::to_string(gpus_per_node) +
                                    " GPUs is implausibly many (at most " + std::to_string(most) + " nodes, " +
                                    std::to_string(kMaxClusterGpus) + " GPUs)");
    return static_cast<int>(*nodes * gpus_per_node);
  }
  if (*gpus < 1) throw FieldError("gpus", "must be positive, got " + std::to_string(*gpus));
  if (*gpus > kMaxClusterGpus)
    throw FieldError(
        "gpus", std::to_string(*gpus) + " GPUs is implausibly many (at most " + std::to_string(kMaxClusterGpus) + ")");
  return static_cast<int>(*gpus);
}

}  // namespace isoflop::parallel
