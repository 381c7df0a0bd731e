// JSON of clusters.
#include "doc/cluster_json.hpp"

#include "doc/hardware_json.hpp"

namespace isoflop::parallel {

using doc::Json;
using doc::read;

void to_json(Json& j, const ClusterSpec& c) {
  j = Json::object();
  j["gpus"] = c.gpus;
  j["gpus_per_node"] = c.gpus_per_node;
  j["node"] = c.node_name;
  j["intra_node_bandwidth_bytes_per_s"] = c.intra_node_bandwidth_bytes_per_s;
  j["inter_node_bandwidth_bytes_per_s"] = c.inter_node_bandwidth_bytes_per_s;
  j["accelerator"] = c.accelerator;
}

void from_json(const Json& j, ClusterSpec& c) {
  c = ClusterSpec{};
  read(j, "gpus", c.gpus);
  read(j, "gpus_per_node", c.gpus_per_node);
  read(j, "node", c.node_name);
  read(j, "intra_node_bandwidth_bytes_per_s", c.intra_node_bandwidth_bytes_per_s);
  read(j, "inter_node_bandwidth_bytes_per_s", c.inter_node_bandwidth_bytes_per_s);
  read(j, "accelerator", c.accelerator);
}

}  // namespace isoflop::parallel
