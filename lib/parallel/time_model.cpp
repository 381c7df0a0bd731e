// The step-time model. Per micro-batch and stage: GEMM FLOPs at a calibrated efficiency plus the collectives
// of tensor, context and expert parallelism; the 1F1B pipeline runs m micro-batches at the pace of its slowest
// stage plus the other stages' fill and drain over v; then the exposed data-parallel reduction, the tied
// embedding's gradient and the optimizer step.
#include "parallel/time_model.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "model/flops.hpp"
#include "parallel/efficiency.hpp"
#include "parallel/memory_model.hpp"
#include "parallel/stages.hpp"
#include "units/format.hpp"

namespace isoflop::parallel {
namespace {

// A group of `span` consecutive ranks (Megatron's order: TP innermost, then CP, EP/DP, PP outermost) talks over
// NVLink only when it fits in one node without straddling two; otherwise its ring runs at the network's pace.
double group_bandwidth(const ClusterSpec& c, long long span) {
  const bool in_node = span <= c.gpus_per_node && c.gpus_per_node % span == 0;
  return (in_node ? c.intra_node_bandwidth_bytes_per_s : c.inter_node_bandwidth_bytes_per_s) *
         c.accelerator.comm_efficiency;
}

double ring(double n) { return (n - 1) / n; }

// One layer's GEMM time per micro-batch on one GPU of its stage, and the rate it runs at.
struct LayerCompute {
  double rate = 0;            // FLOP/s of the bf16 weight GEMMs (the output layer; the linear layers unless FP8)
  double attention_rate = 0;  // FLOP/s of attention's core: per-head GEMMs as narrow as the head
  double compute_s = 0;       // forward and backward
  double recompute_s = 0;     // the forward repeated by recompute
};

LayerCompute layer_compute_s(const JobSpec& job, const catalog::Accelerator& acc, const Layout& l,
                             const model::MegatronFlops& micro) {
  const double s = static_cast<double>(job.seq), h = static_cast<double>(job.architecture.d_model);
  const double b = l.micro_batch, t = l.tp, cp = l.cp, layers = job.architecture.layers;
  // FLOPs per micro-batch by lib/model's Megatron count (Narayanan et al. 2021 appendix: forward per layer
  // 24bsh² + 4bs²h, backward 2×), with MoE layers running top-k experts per token times the capacity factor
  // for padded slots, plus the router. Per layer, dense and MoE layers averaged. Each GPU of a stage does
  // 1/(t·cp) of it: TP splits the matrices, CP the tokens.
  // GEMM width and token rows per GPU (efficiency.hpp); CP leaves each rank s/cp rows.
  const double eff = gemm_efficiency(acc, gemm_width(h, t), b * s / cp);
  LayerCompute c;
  c.rate = acc.peak_16bit_flops * eff * t * cp;
  // Attention's core multiplies, for each head and sequence, (s × hs)(hs × s) for the scores and (s × s)(s × hs)
  // for the values: one dimension of every GEMM is the head size, whatever the layer's width (TP splits heads,
  // not head size), and each has the sequence's s/cp rows. With the fitted constants heads of 128 run at about
  // 0.35-0.55x the linear layers' pace on the H100 and 0.2-0.4x on the A100 (whose published runs predate fused
  // attention); heads of 4–16 (the validation sweeps' tiny models) run far below it. The model does not tell
  // fused from unfused attention: the constants carry whichever the calibration runs used.
  const double head_size = static_cast<double>(job.architecture.effective_head_size());
  const double attention_width = head_size > 0 ? head_size : gemm_width(h, t);
  c.attention_rate = acc.peak_16bit_flops * gemm_efficiency(acc, attention_width, s / cp) * t * cp;
  // FP8 (Transformer Engine's recipe): the linear layers' GEMMs run at the FP8 peak; attention's core and the
  // output layer stay in bf16. The efficiency curve is the bf16 fit's: FP8 runs are not calibrated here.
  const bool fp8 = job.precision == MatmulPrecision::kFp8;
  if (fp8 && !acc.peak_fp8_flops)
    throw FieldError("precision", "accelerator '" + acc.name + "' has no FP8 peak in the catalog; use bf16");
  const double linear_rate = fp8 ? *acc.peak_fp8_flops * eff * t * cp : c.rate;
  const double linear = micro.attention_projections + micro.mlp + micro.experts + micro.router;
  c.compute_s = (linear / linear_rate + micro.attention_scores / c.attention_rate) / layers;
  // Selective recompute repeats attention's core only; full recompute the whole forward, in the same mix.
  const double linear_share = l.recompute == Recompute::kFull ? linear / (linear + micro.attention_scores) : 0.0;
  c.recompute_s = micro.recompute * (linear_share / linear_rate + (1 - linear_share) / c.attention_rate) / layers;
  return c;
}

}  // namespace

// Optimizer step: read and write the fp32 states and weights once, at HBM bandwidth.
double optimizer_step_s(const catalog::Accelerator& acc, const MemoryBreakdown& mem) {
  return 2 * (mem.optimizer_bytes + mem.weights_bytes + mem.gradients_bytes) / acc.memory_bandwidth_bytes_per_s;
}

TimeOptions with_trainer_defaults(const TimeOptions& o, const catalog::TrainerRules& trainer) {
  if (!trainer.loaded()) return o;
  const catalog::TrainerDefaults& d = trainer.defaults;
  TimeOptions r = o;
  if (!r.overlap_grad_reduce) r.overlap_grad_reduce = d.overlap_grad_reduce;
  if (!r.overlap_param_gather) r.overlap_param_gather = d.overlap_param_gather;
  if (!r.tp_comm_overlap) r.tp_comm_overlap = d.tp_comm_overlap;
  if (!r.grad_reduce) r.grad_reduce = d.grad_reduce;
  return r;
}

bool overlaps_grad_reduce(const TimeOptions& options, int zero_stage) {
  return zero_stage == 3 || options.overlap_grad_reduce.value_or(false);
}

StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& l, const TimeOptions& options) {
  return estimate_step_time(job, cluster, l, split_parameters(job.architecture), estimate_memory(job, l), options);
}

StepFlops step_flops(const JobSpec& job, const Layout& l) {
  return {model::megatron_flops(job.architecture, l.micro_batch, job.seq, l.recompute),
          model::megatron_flops(job.architecture, static_cast<double>(job.global_batch), job.seq, l.recompute)};
}

StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& l, const ParameterSplit& split,
                            const MemoryBreakdown& mem, const TimeOptions& options) {
  return estimate_step_time(job, cluster, l, split, mem, step_flops(job, l), options);
}

StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& l, const ParameterSplit& split,
                            const MemoryBreakdown& mem, const StepFlops& flops, const TimeOptions& options) {
  const auto& acc = cluster.accelerator;
  if (!(acc.gemm_efficiency_max > 0))
    throw FieldError("gpu", "accelerator '" + acc.name +
                                "' has no step-time calibration in the catalog (add a calibration block to hardware.yaml)");
  const auto& arch = job.architecture;
  const double s = static_cast<double>(job.seq), h = static_cast<double>(arch.d_model);
  const double b = l.micro_batch, t = l.tp, p = l.pp, v = l.vpp, cp = l.cp;
  const double layers = arch.layers;
  const double bytes = job.bytes_per_value;
  const double m = static_cast<double>(l.micro_batches(job.global_batch));
  const double peak = acc.peak_16bit_flops;
  const double inter = cluster.inter_node_bandwidth_bytes_per_s * acc.comm_efficiency;

  StepTime out;
  TimeSettings& set = out.settings;
  set.overlap_grad_reduce = overlaps_grad_reduce(options, l.zero_stage);
  set.overlap_param_gather = l.zero_stage == 3 || options.overlap_param_gather.value_or(false);
  // Megatron overlaps TP collectives with GEMMs only under sequence parallelism (arguments.py).
  set.tp_comm_overlap = options.tp_comm_overlap.value_or(false) && l.sequence_parallel;
  set.grad_reduce_bytes = !options.grad_reduce ? bytes : *options.grad_reduce == GradReduce::kFp32 ? 4.0 : 2.0;

  const model::MegatronFlops& micro = flops.micro;
  const LayerCompute c = layer_compute_s(job, acc, l, micro);
  const double rate = c.rate, layer_compute = c.compute_s, layer_recompute = c.recompute_s;
  const double layer_attention = micro.attention_scores / layers / c.attention_rate;

  // Tensor parallelism: 2 all-reduces forward, 2 backward per layer (reduce-scatter + all-gather under sequence
  // parallelism, the same bytes); a ring moves 2(t − 1)/t of b·(s/cp)·h values each; full recompute repeats
  // the forward pair. Overlapped with the layer's GEMMs under --tp-comm-overlap.
  double layer_tp = 0, layer_tp_hidden = 0;
  if (l.tp > 1) {
    const double passes = l.recompute == Recompute::kFull ? 6.0 : 4.0;
    const double traffic = passes * 2 * ring(t) * b * (s / cp) * h * bytes / group_bandwidth(cluster, l.tp);
    layer_tp = set.tp_comm_overlap ? std::max(0.0, traffic - layer_compute) : traffic;
    layer_tp_hidden = traffic - layer_tp;
  }
  // Context parallelism (ring attention, Liu et al. 2023): each rank passes its chunk's keys and values around
  // the ring, cp − 1 hops forward; the backward pass sends them again with their gradients (3×, 4× with full
  // recompute), hidden behind the attention computation of each hop.
  double layer_cp = 0, layer_cp_hidden = 0;
  if (l.cp > 1) {
    const double kv_width = h / arch.heads * arch.effective_kv_heads() / t;
    const double passes = l.recompute == Recompute::kFull ? 4.0 : 3.0;
    const double traffic = passes * (cp - 1) * 2 * b * (s / cp) * kv_width * bytes / group_bandwidth(cluster, l.tp * l.cp);
    layer_cp = std::max(0.0, traffic - layer_attention);
    layer_cp_hidden = traffic - layer_cp;
  }
  // MoE all-to-all: dispatch and combine, forward and backward, of top-k × capacity-factor slots per token,
  // per MoE layer over the EP group (averaged over the layers like the FLOPs).
  double layer_moe = 0;
  if (arch.moe.enabled() && l.ep > 1) {
    const double volume = 4 * b * (s / cp) * h * bytes * arch.moe.top_k * arch.moe.capacity_factor * ring(l.ep) / t;
    layer_moe = volume / group_bandwidth(cluster, static_cast<long long>(l.tp) * l.ep) * split.moe_layers / layers;
  }
  // Pipeline: b·s·h values each way per micro-batch per boundary, split over the t ranks (scatter/gather),
  // v times with interleaving; stages sit on different nodes.
  const double pp_mb = l.pp > 1 ? 2 * v * b * (s / cp) * h * bytes / t / inter : 0.0;
  // The last stage runs the output layer (vocabulary-parallel over TP) and the fused cross-entropy, which reads
  // the fp32 logits twice and writes their gradient; the first stage gathers embeddings and scatters their
  // gradient into an fp32 table (memory-bound).
  const double hbm = acc.memory_bandwidth_bytes_per_s;
  const double logits_mb = micro.logits / rate + 3 * 4 * b * (s / cp) * arch.vocab / t / hbm;
  const double embedding_mb = (bytes + 4) * b * (s / cp) * h / hbm;

  // Each layer's kernels cost a fixed time per micro-batch however small the layer (the accelerator's
  // layer_overhead_s, 0 where unmeasured): what bounds models of a few million parameters (reference/training.md,
  // "small models are launch-bound").
  const double layer_overhead = acc.layer_overhead_s;
  const double layer_mb = layer_compute + layer_recompute + layer_tp + layer_cp + layer_moe + layer_overhead;
  const StageLayers st = pipeline_stage_layers(arch.layers, l);
  const double first = st.first * layer_mb + pp_mb + embedding_mb + (l.pp == 1 ? logits_mb : 0.0);
  const double last = l.pp == 1 ? first : st.last * layer_mb + pp_mb + logits_mb;
  const double middle = st.middle * layer_mb + pp_mb;
  const double slowest = l.pp > 2 ? std::max({first, middle, last}) : std::max(first, last);
  const double all_stages = l.pp == 1 ? first : first + last + (p - 2) * middle;
  const int critical_layers = slowest == last ? st.last : slowest == first ? st.first : st.middle;
  const bool critical_last = slowest == last, critical_first = slowest == first;

  StepBreakdown& bd = out.breakdown;
  bd.compute_s = m * critical_layers * layer_compute;
  bd.recompute_s = m * critical_layers * layer_recompute;
  bd.tp_comm_s = m * critical_layers * layer_tp;
  bd.cp_comm_s = m * critical_layers * layer_cp;
  bd.moe_comm_s = m * critical_layers * layer_moe;
  bd.layer_overhead_s = m * critical_layers * layer_overhead;
  bd.pp_comm_s = m * pp_mb;
  bd.logits_s = critical_last ? m * logits_mb : 0.0;
  bd.embedding_s = critical_first ? m * embedding_mb : 0.0;
  bd.tp_hidden_s = m * critical_layers * layer_tp_hidden;
  bd.cp_hidden_s = m * critical_layers * layer_cp_hidden;
  // 1F1B: m micro-batches at the slowest stage's pace; filling and draining costs the other stages once,
  // over v with interleaving (Narayanan et al. 2021: bubble (p − 1)/(v·m) of the ideal time for even stages).
  bd.bubble_s = (all_stages - slowest) / v;

  // Data parallelism over DP·CP ranks (the weights are replicated across CP too); experts over DP/EP. The
  // gradient bytes are the trainer's reduction type. ZeRO-0 all-reduces once per step, ZeRO-1 reduce-scatters
  // gradients and all-gathers updated weights once per step; ZeRO-2 reduce-scatters every micro-batch's
  // gradients; ZeRO-3 also all-gathers the weights before every micro-batch's forward and backward
  // (Rajbhandari et al. 2020 §5, §7).
  if (l.dp * l.cp > 1) {
    const double edge = std::max(split.embedding, split.output_head > 0 ? split.output_head : split.embedding);
    const double stage_layers = std::max({st.first, st.middle, st.last});
    const double dense = (split.per_layer_dense * stage_layers + (l.pp == 1 ? split.embedding + split.output_head : edge)) / t;
    const double experts = split.per_moe_layer_experts * split.moe_layers * stage_layers / layers / l.ep / t;
    const double n = l.dp * cp, n_experts = std::max(1.0, n / l.ep);
    const double bandwidth = group_bandwidth(cluster, static_cast<long long>(l.tp) * l.cp * l.dp);
    // One pass over the stage's parameters in `value_bytes`, reduce-scatter or all-gather.
    auto pass = [&](double value_bytes) {
      return (ring(n) * dense + ring(n_experts) * experts) * value_bytes / bandwidth;
    };
    const double grads = pass(set.grad_reduce_bytes), weights = pass(bytes);
    // One micro-batch of the slowest stage, its layers' fixed overhead included: the collectives run on their own
    // stream while the kernels are launched, so launch gaps hide traffic as compute does.
    const double mb = slowest - pp_mb;
    const double backward_window = mb * 2.0 / 3.0 + critical_layers * layer_recompute;
    const double forward_window = mb / 3.0;
    // Overlapped traffic hides behind `window` of compute; the rest is exposed.
    auto hide = [](double traffic, bool overlap, double window) {
      return overlap ? std::max(0.0, traffic - window) : traffic;
    };
    double traffic = 0;
    switch (l.zero_stage) {
      case 0:
        traffic = 2 * grads;
        bd.dp_comm_s = hide(2 * grads, set.overlap_grad_reduce, backward_window);
        break;
      case 1:
        traffic = grads + weights;
        bd.dp_comm_s = hide(grads, set.overlap_grad_reduce, backward_window) +
                       hide(weights, set.overlap_param_gather, forward_window);
        break;
      case 2:
        traffic = m * grads + weights;
        bd.dp_comm_s = m * hide(grads, set.overlap_grad_reduce, backward_window) +
                       hide(weights, set.overlap_param_gather, forward_window);
        break;
      default:
        // Gathers are prefetched and reduce-scatters overlapped (overlaps_grad_reduce): part of each micro-batch's
        // traffic hides behind its compute.
        traffic = m * (2 * weights + grads);
        bd.dp_comm_s = m * std::max(0.0, 2 * weights + grads - acc.zero3_overlap * mb);
    }
    bd.dp_hidden_s = traffic - bd.dp_comm_s;
  }
  // Tied embeddings: the first and last stages each hold the word embedding; its gradient is all-reduced
  // between them after the last micro-batch (Megatron-Core finalize_model_grads).
  if (l.pp > 1 && split.output_head == 0)
    bd.embedding_sync_s = split.embedding / t * set.grad_reduce_bytes / inter;
  bd.optimizer_s = optimizer_step_s(acc, mem);
  out.step_time_s = bd.total_s();

  // Korthikanti eq. 7 (model FLOPs) and the hardware FLOPs actually executed.
  const model::MegatronFlops& step = flops.step;
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

double gemm_lower_bound_s(const JobSpec& job, const ClusterSpec& cluster, const Layout& l, const StageLayers& st,
                          const StepFlops& flops) {
  const LayerCompute c = layer_compute_s(job, cluster.accelerator, l, flops.micro);
  const int most = l.pp == 1 ? st.first : l.pp == 2 ? std::max(st.first, st.last) : st.most();
  // Every stage spends at least its layers' GEMMs and fixed per-layer costs per micro-batch: m of them on the
  // slowest (≥ the most layers), and the bubble is the other stages' time over v, at least the remaining layers'.
  const double per_layer = c.compute_s + c.recompute_s + cluster.accelerator.layer_overhead_s;
  const double m = static_cast<double>(l.micro_batches(job.global_batch));
  return m * most * per_layer + (job.architecture.layers - most) * per_layer / l.vpp;
}

std::string largest_overhead(const StepTime& t) {
  const StepBreakdown& b = t.breakdown;
  // Every part of the step but the model's own compute (total_s()'s terms).
  const std::pair<double, const char*> parts[] = {{b.dp_comm_s, "data-parallel communication"},
                                                  {b.bubble_s, "pipeline bubble"},
                                                  {b.tp_comm_s, "tensor-parallel communication"},
                                                  {b.cp_comm_s, "context-parallel communication"},
                                                  {b.pp_comm_s, "pipeline sends"},
                                                  {b.recompute_s, "recomputed activations"},
                                                  {b.logits_s, "output layer and loss on the last stage"},
                                                  {b.embedding_s, "embedding on the first stage"},
                                                  {b.embedding_sync_s, "tied-embedding gradient sync"},
                                                  {b.moe_comm_s, "expert all-to-all"},
                                                  {b.optimizer_s, "optimizer step"},
                                                  {b.layer_overhead_s, "per-layer overhead (kernel launches)"}};
  const auto* top = &parts[0];
  for (const auto& p : parts)
    if (p.first > top->first) top = &p;
  return units::format_significant(top->first / t.step_time_s * 100, 3) + " % of the " +
         units::format_significant(t.step_time_s, 3) + " s step is " + top->second;
}

}  // namespace isoflop::parallel
