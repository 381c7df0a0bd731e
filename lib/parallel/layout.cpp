// Validation of clusters, jobs and layouts: each rule with a message that names it.
#include "parallel/layout.hpp"

#include "core/error.hpp"
#include "parallel/stages.hpp"

namespace isoflop::parallel {

void ClusterSpec::validate() const {
  if (gpus <= 0) throw FieldError("gpus", "must be positive, got " + std::to_string(gpus));
  if (gpus_per_node <= 0) throw FieldError("gpus_per_node", "must be positive, got " + std::to_string(gpus_per_node));
  if (gpus > gpus_per_node && gpus % gpus_per_node != 0)
    throw FieldError("gpus", std::to_string(gpus) + " is not a whole number of " + std::to_string(gpus_per_node) +
                                 "-GPU nodes");
  if (!(intra_node_bandwidth_bytes_per_s > 0) || !(inter_node_bandwidth_bytes_per_s > 0))
    throw InputError("cluster: intra- and inter-node bandwidths must be positive");
}

void JobSpec::validate() const {
  const auto& a = architecture;
  if (a.layers <= 0 || a.d_model <= 0 || a.heads <= 0 || a.vocab <= 0)
    throw InputError("architecture '" + a.name + "': layers, d_model, heads and vocab must be positive");
  if (seq <= 0) throw FieldError("seq", "must be positive, got " + std::to_string(seq));
  if (global_batch <= 0) throw FieldError("global_batch", "must be positive, got " + std::to_string(global_batch));
}

std::string layout_violation(const Layout& l, const JobSpec& job, const ClusterSpec& cluster) {
  const auto& a = job.architecture;
  auto s = [](long long v) { return std::to_string(v); };
  if (l.tp < 1 || l.pp < 1 || l.dp < 1 || l.ep < 1 || l.vpp < 1 || l.micro_batch < 1)
    return "parallel degrees and the micro-batch must be at least 1";
  if (l.gpus() != cluster.gpus)
    return "TP·PP·DP = " + s(l.tp) + "·" + s(l.pp) + "·" + s(l.dp) + " = " + s(l.gpus()) + " is not the " +
           s(cluster.gpus) + " GPUs";
  if (a.heads % l.tp != 0) return "heads " + s(a.heads) + " are not divisible by TP " + s(l.tp);
  if (std::string split = stage_split_violation(a.layers, l); !split.empty()) return split;
  if (job.global_batch % (static_cast<long long>(l.micro_batch) * l.dp) != 0)
    return "global batch " + s(job.global_batch) + " is not divisible by micro-batch·DP = " +
           s(static_cast<long long>(l.micro_batch) * l.dp);
  if (l.vpp > 1 && (l.pp == 1 || l.micro_batches(job.global_batch) % l.pp != 0))
    return "interleaving (VPP " + s(l.vpp) + ") needs PP > 1 and micro-batches " + s(l.micro_batches(job.global_batch)) +
           " divisible by PP " + s(l.pp);
  if (l.zero_stage < 0 || l.zero_stage > 3) return "ZeRO stage must be 0..3";
  if (l.sequence_parallel && l.tp == 1) return "sequence parallelism needs TP > 1";
  if (a.moe.enabled()) {
    if (a.moe.experts % l.ep != 0) return "experts " + s(a.moe.experts) + " are not divisible by EP " + s(l.ep);
    if (l.dp % l.ep != 0) return "DP " + s(l.dp) + " is not divisible by EP " + s(l.ep);
  } else if (l.ep != 1) {
    return "expert parallelism needs an MoE model";
  }
  return "";
}

}  // namespace isoflop::parallel
