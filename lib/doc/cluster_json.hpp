// JSON of a cluster (parallel::ClusterSpec): the accelerator's full record, the counts and the bandwidths.
//
//   {"gpus", "gpus_per_node", "node", "intra_node_bandwidth_bytes_per_s", "inter_node_bandwidth_bytes_per_s",
//    "accelerator": {…doc/hardware_json.hpp…}}
//
// The bandwidths are per GPU and per direction (the inter-node one is the node's NICs shared by its GPUs).
#pragma once

#include "doc/document.hpp"
#include "parallel/layout.hpp"

namespace isoflop::parallel {

void to_json(doc::Json& j, const ClusterSpec& cluster);
void from_json(const doc::Json& j, ClusterSpec& cluster);

}  // namespace isoflop::parallel
