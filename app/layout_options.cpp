// Options shared by `layout` and `plan`: the cluster (--gpu/--node/--gpus/--nodes) and the layout pins.
#include "app/layout_options.hpp"

#include "core/error.hpp"

namespace isoflop::app {

void add_cluster_options(po::options_description& options) {
  options.add_options()
      ("gpu", po::value<std::string>()->value_name("NAME"), "accelerator id (isoflop catalog hardware)")
      ("node", po::value<std::string>()->value_name("NAME"), "node id, e.g. dgx-a100 (default: the GPU's reference node)")
      ("gpus", po::value<std::string>()->value_name("N"), "number of GPUs")
      ("nodes", po::value<std::string>()->value_name("K"), "number of nodes (instead of --gpus)")
      ("gpus-per-node", po::value<std::string>()->value_name("G"), "GPUs per node (default: the node's)");
}

void add_layout_options(po::options_description& options) {
  options.add_options()
      ("tp", po::value<std::string>()->value_name("T"), "pin the tensor-parallel degree")
      ("pp", po::value<std::string>()->value_name("P"), "pin the pipeline-parallel degree")
      ("dp", po::value<std::string>()->value_name("D"), "pin the data-parallel degree")
      ("ep", po::value<std::string>()->value_name("E"), "pin the expert-parallel degree (MoE)")
      ("vpp", po::value<std::string>()->value_name("V"), "pin the virtual stages per device (interleaved 1F1B)")
      ("micro-batch", po::value<std::string>()->value_name("M"), "pin the micro-batch (sequences)")
      ("zero", po::value<std::string>()->value_name("0..3"), "pin the ZeRO stage")
      ("recompute", po::value<std::string>()->value_name("MODE"), "pin activation recompute: none|selective|full")
      ("sequence-parallel", po::value<std::string>()->value_name("on|off"), "pin sequence parallelism")
      ("max-tp", po::value<std::string>()->value_name("T"), "largest TP tried (default: GPUs per node)")
      ("objective", po::value<std::string>()->value_name("OBJ"),
       "rank by time|memory (cost and energy rank like time on a fixed cluster)")
      ("top", po::value<std::string>()->value_name("K"), "layouts to show (default 5)");
}

parallel::ClusterRequest cluster_request(const po::variables_map& vm) {
  parallel::ClusterRequest r;
  r.gpu = get_string(vm, "gpu");
  r.node = get_string(vm, "node");
  r.gpus = get_integer(vm, "gpus");
  r.nodes = get_integer(vm, "nodes");
  r.gpus_per_node = get_integer(vm, "gpus-per-node");
  return r;
}

parallel::SearchOptions search_options(const po::variables_map& vm) {
  parallel::SearchOptions o;
  o.pins.tp = get_int(vm, "tp");
  o.pins.pp = get_int(vm, "pp");
  o.pins.dp = get_int(vm, "dp");
  o.pins.ep = get_int(vm, "ep");
  o.pins.vpp = get_int(vm, "vpp");
  o.pins.micro_batch = get_int(vm, "micro-batch");
  o.pins.zero_stage = get_int(vm, "zero", units::Sign::kNonNegative);
  if (auto r = get_string(vm, "recompute")) o.pins.recompute = parallel::kRecomputeNames.parse(*r, "--recompute");
  if (auto sp = get_string(vm, "sequence-parallel")) {
    if (*sp != "on" && *sp != "off") throw InputError("--sequence-parallel: '" + *sp + "' is not one of on|off");
    o.pins.sequence_parallel = *sp == "on";
  }
  o.max_tp = get_int(vm, "max-tp");
  if (auto obj = get_string(vm, "objective")) {
    const std::string key = (*obj == "cost" || *obj == "energy") ? std::string("time") : *obj;
    if (key != "time" && key != "memory")
      throw InputError("--objective: '" + *obj + "' is not one of time|memory|cost|energy");
    o.objective = parallel::kObjectiveNames.parse(key, "--objective");
  }
  if (auto k = get_int(vm, "top")) o.top_k = *k;
  return o;
}

}  // namespace isoflop::app
