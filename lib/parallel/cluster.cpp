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
    if (acc->reference_node.empty())
      throw FieldError("gpu", "'" + acc->name + "' has no reference node in the catalog; name a node");
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
  }
  c.intra_node_bandwidth_bytes_per_s = node->intra_node_bandwidth_bytes_per_s;
  // The node's NICs are shared by its GPUs: per-GPU network bandwidth.
  c.inter_node_bandwidth_bytes_per_s = node->inter_node_bandwidth_bytes_per_s / node->gpus_per_node;
  if (r.gpus && r.nodes) throw FieldError("nodes", "conflicts with a GPU count; give only one");
  if (r.nodes) {
    if (*r.nodes < 1) throw FieldError("nodes", "must be positive");
    if (*r.nodes > 100'000'000 / c.gpus_per_node)  // checked before the product can overflow
      throw FieldError("nodes", std::to_string(*r.nodes) + " nodes of " + std::to_string(c.gpus_per_node) +
                                    " GPUs is implausibly many (at most 100000000 GPUs)");
    c.gpus = static_cast<int>(*r.nodes * c.gpus_per_node);
  } else if (r.gpus) {
    if (*r.gpus < 1) throw FieldError("gpus", "must be positive");
    if (*r.gpus > 100'000'000) throw FieldError("gpus", "implausibly many");
    c.gpus = static_cast<int>(*r.gpus);
  } else {
    throw FieldError("gpus", "missing cluster size; give a GPU count or a node count");
  }
  if (r.whole_nodes) {
    c.validate();
  } else {  // the rest of the rules, on the nodes the GPUs occupy
    ClusterSpec occupied = c;
    if (c.gpus > c.gpus_per_node)  // below 2e8: gpus <= 1e8 and gpus_per_node < gpus
      occupied.gpus = (c.gpus + c.gpus_per_node - 1) / c.gpus_per_node * c.gpus_per_node;
    occupied.validate();
  }
  return out;
}

}  // namespace isoflop::parallel
