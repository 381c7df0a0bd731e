// The step-time model. Per micro-batch and stage: GEMM FLOPs at a calibrated efficiency plus tensor-parallel
// all-reduces; the 1F1B pipeline runs m micro-batches plus (p − 1)/v of fill and drain; then the exposed
// data-parallel reduction and the optimizer step.
#include "parallel/time_model.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "model/flops.hpp"
#include "parallel/efficiency.hpp"
#include "parallel/memory_model.hpp"

namespace isoflop::parallel {

StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& l, const TimeOptions& options) {
  const auto& acc = cluster.accelerator;
  if (!(acc.gemm_efficiency_max > 0))
    throw FieldError("gpu", "accelerator '" + acc.name +
                                "' has no step-time calibration in the catalog (add a calibration block to hardware.yaml)");
  const auto& arch = job.architecture;
  const double s = static_cast<double>(job.seq), h = static_cast<double>(arch.d_model);
  const double b = l.micro_batch, t = l.tp, p = l.pp, v = l.vpp;
  const double layers = arch.layers;
  const double bytes = job.bytes_per_value;
  const double m = static_cast<double>(l.micro_batches(job.global_batch));
  const double peak = acc.peak_16bit_flops;
  const double comm_eff = acc.comm_efficiency;

  // FLOPs per micro-batch by lib/model's Megatron count (Narayanan et al. 2021 appendix: forward per layer
  // 24bsh² + 4bs²h, backward 2×), with MoE layers running top-k experts per token times the capacity factor
  // for padded slots, plus the router. Per layer, dense and MoE layers averaged.
  const ParameterSplit split = split_parameters(arch);
  const model::MegatronFlops micro = model::megatron_flops(arch, b, job.seq, l.recompute);
  const double forward_layer = (micro.model() - micro.logits) / 3 / layers;
  const double logits_forward = micro.logits / 3;
  const double layers_per_stage = layers / p;
  const double eff = gemm_efficiency(acc, gemm_width(h, t), b * s);  // GEMM width and token rows (efficiency.hpp)

  const double stage_forward = forward_layer * layers_per_stage / t;
  // Full recompute repeats the stage's forward; selective the attention scores (Korthikanti eq. 8 − eq. 7).
  const double recompute_flops = micro.recompute * layers_per_stage / layers / t;
  // The logits (forward + backward = 3 × 2bshV) sit on the last stage; spread over stages for the critical path.
  const double logits_stage = 3 * logits_forward / t / p;
  const double compute_mb = (3 * stage_forward + logits_stage) / (peak * eff);
  const double recompute_mb = recompute_flops / (peak * eff);

  // Tensor parallelism: 2 all-reduces forward, 2 backward per layer; a ring moves 2(t − 1)/t of b·s·h values
  // each (8bsh(t − 1)/t per layer); full recompute repeats the forward pair. NVLink inside a node.
  double tp_mb = 0;
  if (l.tp > 1) {
    const double passes = l.recompute == Recompute::kFull ? 6.0 : 4.0;
    const double volume = passes * 2 * (t - 1) / t * b * s * h * bytes * layers_per_stage;
    const double bandwidth = (l.tp <= cluster.gpus_per_node ? cluster.intra_node_bandwidth_bytes_per_s
                                                            : cluster.inter_node_bandwidth_bytes_per_s) * comm_eff;
    tp_mb = volume / bandwidth;
  }
  // Pipeline: b·s·h values each way per micro-batch per boundary, split over the t ranks (scatter/gather),
  // v times with interleaving; stages sit on different nodes.
  double pp_mb = 0;
  if (l.pp > 1) pp_mb = 2 * v * b * s * h * bytes / t / (cluster.inter_node_bandwidth_bytes_per_s * comm_eff);

  // MoE all-to-all: dispatch and combine, forward and backward, per MoE layer, over the EP group.
  double moe_mb = 0;
  if (arch.moe.enabled() && l.ep > 1) {
    const double moe_layers_stage = static_cast<double>(split.moe_layers) / p;
    const double volume = 4 * b * s * h * bytes * arch.moe.top_k * (l.ep - 1) / l.ep * moe_layers_stage / t;
    const double bandwidth = (l.ep * l.tp <= cluster.gpus_per_node ? cluster.intra_node_bandwidth_bytes_per_s
                                                                    : cluster.inter_node_bandwidth_bytes_per_s) * comm_eff;
    moe_mb = volume / bandwidth;
  }

  const double per_mb = compute_mb + recompute_mb + tp_mb + pp_mb + moe_mb;
  StepTime out;
  StepBreakdown& bd = out.breakdown;
  bd.compute_s = compute_mb * m;
  bd.recompute_s = recompute_mb * m;
  bd.tp_comm_s = tp_mb * m;
  bd.pp_comm_s = pp_mb * m;
  bd.moe_comm_s = moe_mb * m;
  bd.bubble_s = (p - 1) / v * per_mb;  // Narayanan et al. 2021: bubble = (p − 1)/(v·m) of the ideal time

  // Data parallelism: ring all-reduce (or reduce-scatter + all-gather) of the stage's gradients, 2(d − 1)/d
  // of them; ZeRO-3 also gathers weights: 1.5× the traffic (Rajbhandari et al. 2020 §7).
  if (l.dp > 1) {
    const double stage_params = (split.per_layer_dense * layers_per_stage +
                                 split.per_moe_layer_experts * split.moe_layers / p / l.ep + split.embedding / p) / t;
    double volume = 2.0 * (l.dp - 1) / l.dp * stage_params * bytes;
    const bool in_node = l.tp * l.dp <= cluster.gpus_per_node;
    const double bandwidth =
        (in_node ? cluster.intra_node_bandwidth_bytes_per_s : cluster.inter_node_bandwidth_bytes_per_s) * comm_eff;
    if (l.zero_stage == 3) {
      // ZeRO-3 gathers weights before forward and backward and reduce-scatters gradients: 1.5× the traffic,
      // prefetched so that part of it hides behind compute.
      const double traffic_s = 1.5 * volume / bandwidth;
      bd.dp_comm_s = std::max(0.0, traffic_s - acc.zero3_overlap * (bd.compute_s + bd.recompute_s));
    } else {
      bd.dp_comm_s = (1 - options.dp_overlap) * volume / bandwidth;
    }
  }
  // Optimizer step: read and write the fp32 states and weights once, at HBM bandwidth.
  {
    const MemoryBreakdown mem = estimate_memory(job, l);
    const double state_bytes = mem.optimizer_bytes + mem.weights_bytes + mem.gradients_bytes;
    bd.optimizer_s = 2 * state_bytes / acc.memory_bandwidth_bytes_per_s;
  }
  out.step_time_s = bd.compute_s + bd.recompute_s + bd.tp_comm_s + bd.pp_comm_s + bd.moe_comm_s + bd.bubble_s +
                    bd.dp_comm_s + bd.optimizer_s;

  // Korthikanti eq. 7 (model FLOPs) and the hardware FLOPs actually executed.
  const model::MegatronFlops step = model::megatron_flops(arch, static_cast<double>(job.global_batch), job.seq, l.recompute);
  out.model_flops_per_step = step.model();
  out.hardware_flops_per_step = step.hardware();
  const double B = static_cast<double>(job.global_batch);
  const double n = l.gpus();
  out.tokens_per_s = B * s / out.step_time_s;
  out.model_tflops_per_gpu = out.model_flops_per_step / out.step_time_s / n / 1e12;
  out.hardware_tflops_per_gpu = out.hardware_flops_per_step / out.step_time_s / n / 1e12;
  out.mfu = out.model_tflops_per_gpu * 1e12 / peak;
  out.hfu = out.hardware_tflops_per_gpu * 1e12 / peak;
  return out;
}

}  // namespace isoflop::parallel
