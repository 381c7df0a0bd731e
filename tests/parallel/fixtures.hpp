// Shared by the parallel tests: a cluster of catalog nodes and a layout from its degrees.
#pragma once

#include <string>

#include "catalog/catalog.hpp"
#include "parallel/layout.hpp"

namespace isoflop::test {

// `gpus` accelerators in nodes of the catalog's `node`, with the node's bandwidths per GPU.
inline parallel::ClusterSpec catalog_cluster(const catalog::Catalog& cat, int gpus,
                                             const std::string& gpu = "a100-sxm4-80gb",
                                             const std::string& node = "dgx-a100") {
  const catalog::Node& n = cat.node(node);
  parallel::ClusterSpec c;
  c.accelerator = cat.accelerator(gpu);
  c.gpus = gpus;
  c.gpus_per_node = n.gpus_per_node;
  c.intra_node_bandwidth_bytes_per_s = n.intra_node_bandwidth_bytes_per_s;
  c.inter_node_bandwidth_bytes_per_s = n.inter_node_bandwidth_bytes_per_s / n.gpus_per_node;
  return c;
}

// A layout by its degrees; the rest at their defaults.
inline parallel::Layout make_layout(int tp, int pp, int dp, int zero, int vpp = 1, int ep = 1, int cp = 1,
                                    bool sequence_parallel = false) {
  parallel::Layout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.zero_stage = zero;
  l.vpp = vpp;
  l.ep = ep;
  l.cp = cp;
  l.sequence_parallel = sequence_parallel;
  return l;
}

}  // namespace isoflop::test
