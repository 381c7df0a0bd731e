// Megatron-LM: a launch script for pretrain_gpt.py, and the checks its argument parser and validate_args make
// (NVIDIA/Megatron-LM megatron/training/arguments.py; the flag lists per release are data/launch/megatron_flags.yaml).
#include "emit/targets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "emit/argv.hpp"
#include "core/suggest.hpp"
#include "emit/shell.hpp"
#include "model/params.hpp"

namespace isoflop::emit {
namespace {

using model::Activation;
using model::NormKind;
using model::PositionalEncoding;

std::string str(long long v) { return std::to_string(v); }

void add(std::vector<Argument>& out, std::string name, std::vector<std::string> values = {}) {
  out.push_back({std::move(name), std::move(values)});
}

void add_model(const LaunchSpec& s, std::vector<Argument>& a) {
  const auto& m = s.arch;
  add(a, "num-layers", {str(m.layers)});
  add(a, "hidden-size", {str(m.d_model)});
  add(a, "ffn-hidden-size", {str(model::mlp_hidden_size(m))});
  add(a, "num-attention-heads", {str(m.heads)});
  if (m.effective_kv_heads() != m.heads) {
    add(a, "group-query-attention");
    add(a, "num-query-groups", {str(m.effective_kv_heads())});
  }
  add(a, "kv-channels", {str(m.effective_head_size())});
  add(a, "seq-length", {str(s.seq)});
  add(a, "max-position-embeddings", {str(s.seq)});
  switch (m.positional) {
    case PositionalEncoding::kLearned: add(a, "position-embedding-type", {"learned_absolute"}); break;
    case PositionalEncoding::kRotary: add(a, "position-embedding-type", {"rope"}); break;
    case PositionalEncoding::kNone: add(a, "position-embedding-type", {"none"}); break;
    default:
      throw FieldError("plan architecture", "'" + std::string(model::kPositionalEncodingNames.name(m.positional)) +
                                                      "' has no Megatron-LM spelling; accepted: learned, rotary, none");
  }
  add(a, "normalization", {m.norm == NormKind::kRmsNorm ? "RMSNorm" : "LayerNorm"});
  if (m.activation == Activation::kSwiglu) add(a, "swiglu");
  if (m.activation == Activation::kRelu)
    throw FieldError("plan architecture", "'relu' has no Megatron-LM spelling; accepted: gelu, swiglu");
  if (!m.tied_embeddings) add(a, "untie-embeddings-and-output-weights");
  if (!m.bias) add(a, "disable-bias-linear");
  // The plan counted this vocabulary; a real run names its tokenizer instead (the comment says so).
  add(a, "tokenizer-type", {"NullTokenizer"});
  add(a, "vocab-size", {str(m.vocab)});
  add(a, "make-vocab-size-divisible-by", {str(std::max(1, m.vocab_pad_multiple / std::max(1, s.layout.tp)))});
  if (s.job.attention == parallel::AttentionKernel::kFlash) add(a, "use-flash-attn");
  if (m.moe.enabled()) {
    add(a, "num-experts", {str(m.moe.experts)});
    add(a, "moe-router-topk", {str(m.moe.top_k)});
    add(a, "moe-expert-capacity-factor", {number(m.moe.capacity_factor)});
    add(a, "moe-token-dispatcher-type", {"alltoall"});  // the capacity factor needs it
    // A softmax over one chosen expert is 1 whatever the logits, so its gradient is 0: top-1 routing takes the
    // softmax before the choice (TransformerConfig raises without it, core_v0.13.0).
    if (m.moe.top_k == 1) add(a, "moe-router-pre-softmax");
    if (m.moe.every > 1) add(a, "moe-layer-freq", {str(m.moe.every)});
  }
}

void add_layout(const LaunchSpec& s, std::vector<Argument>& a) {
  const auto& l = s.layout;
  add(a, "tensor-model-parallel-size", {str(l.tp)});
  add(a, "pipeline-model-parallel-size", {str(l.pp)});
  if (l.first_stage_layers > 0) add(a, "decoder-first-pipeline-num-layers", {str(l.first_stage_layers)});
  if (l.last_stage_layers > 0) add(a, "decoder-last-pipeline-num-layers", {str(l.last_stage_layers)});
  // Interleaving: validate_args (core_v0.13.0) takes the layers per virtual stage only for an even split; with
  // uneven first or last stages the virtual stages are counted per rank instead.
  if (l.vpp > 1 && (l.first_stage_layers > 0 || l.last_stage_layers > 0))
    add(a, "num-virtual-stages-per-pipeline-rank", {str(l.vpp)});
  else if (l.vpp > 1)
    add(a, "num-layers-per-virtual-pipeline-stage", {str(s.arch.layers / (static_cast<long long>(l.pp) * l.vpp))});
  if (l.sequence_parallel && l.tp > 1) add(a, "sequence-parallel");
  if (l.cp > 1) add(a, "context-parallel-size", {str(l.cp)});
  if (l.ep > 1) add(a, "expert-model-parallel-size", {str(l.ep)});
  // The overlaps the plan's step time assumed (the trainer's defaults unless --overlap-* said otherwise);
  // validate_args wants --overlap-param-gather with the distributed optimizer and --overlap-grad-reduce only.
  const bool overlap_grads = s.search.time.overlap_grad_reduce.value_or(false);
  if (l.zero_stage <= 1 && overlap_grads) add(a, "overlap-grad-reduce");
  if (l.zero_stage == 1) {
    add(a, "use-distributed-optimizer");
    if (overlap_grads && s.search.time.overlap_param_gather.value_or(false)) add(a, "overlap-param-gather");
  } else if (l.zero_stage == 3) {
    // core_v0.10 on; validate_args then wants the checkpoint format below and no gradient-accumulation fusion
    // (on by default)
    add(a, "use-torch-fsdp2");
    add(a, "ckpt-format", {"torch_dist"});
    add(a, "no-gradient-accumulation-fusion");
  } else if (l.zero_stage == 2) {
    throw FieldError("plan layout", "2 has no Megatron-LM spelling (it shards the optimizer with " +
                                        long_option("use-distributed-optimizer") + ", ZeRO-1, or everything with " +
                                        long_option("use-torch-fsdp2") + ", ZeRO-3); accepted: 0, 1, 3");
  }
  // The plan chose bf16 gradients (--grad-reduce bf16): its memory counted them so, and Megatron-LM reduces bf16
  // runs' gradients in fp32 unless told (arguments.py; the flag is core_v0.13.0's). An fp16 run's it reduces in
  // fp16 unless told: the plan's fp32 gradients (its optimizer's 18 bytes a parameter) are asked for.
  const bool fp16 = s.job.precision == parallel::MatmulPrecision::kFp16;
  if (!fp16 && s.search.time.grad_reduce == parallel::GradReduce::kBf16) add(a, "grad-reduce-in-bf16");
  if (fp16 && s.job.optimizer == parallel::Optimizer::kMegatronAdam) add(a, "accumulate-allreduce-grads-in-fp32");
  if (l.recompute == model::Recompute::kFull) {
    add(a, "recompute-granularity", {"full"});
    add(a, "recompute-method", {"uniform"});
    add(a, "recompute-num-layers", {"1"});
  } else if (l.recompute == model::Recompute::kSelective) {
    add(a, "recompute-granularity", {"selective"});
  }
}

void add_training(const LaunchSpec& s, std::vector<Argument>& a) {
  const LaunchData& d = *s.data;
  add(a, "micro-batch-size", {str(s.layout.micro_batch)});
  add(a, "global-batch-size", {str(s.global_batch)});
  add(a, "train-samples", {str(s.train_samples)});
  add(a, "lr", {number(s.schedule.peak_lr)});
  add(a, "min-lr", {number(s.schedule.min_lr)});
  add(a, "lr-decay-style", {"cosine"});
  add(a, "lr-warmup-samples", {str(s.schedule.warmup_samples)});
  add(a, "lr-decay-samples", {str(s.schedule.decay_samples)});
  add(a, "weight-decay", {number(d.weight_decay)});
  add(a, "clip-grad", {number(d.clip_grad)});
  add(a, "adam-beta1", {number(d.adam_beta1)});
  add(a, "adam-beta2", {number(d.adam_beta2)});
  add(a, "adam-eps", {number(d.adam_eps)});
  // fp16 on parts without bf16 tensor math, with Megatron-LM's dynamic loss scaling (no --loss-scale).
  add(a, s.job.precision == parallel::MatmulPrecision::kFp16 ? "fp16" : "bf16");
  if (s.job.precision == parallel::MatmulPrecision::kFp8) {
    add(a, "fp8-format", {"hybrid"});
    add(a, "transformer-impl", {"transformer_engine"});
  } else if (!s.cluster.accelerator.transformer_engine) {
    // Transformer Engine, Megatron-Core's default layers, starts at Ampere: a V100 runs the local ones.
    add(a, "transformer-impl", {"local"});
  }
  add(a, "log-interval", {str(d.log_interval)});
  add(a, "save-interval", {str(d.save_interval)});
  add(a, "eval-interval", {str(d.eval_interval)});
  add(a, "eval-iters", {str(d.eval_iters)});
  add(a, "split", {d.split});
  add(a, "data-path", {"$DATA_PATH"});
  add(a, "save", {"$CHECKPOINT_DIR"});
  add(a, "load", {"$CHECKPOINT_DIR"});
}

// Megatron's validate_args, its configs' checks and its micro-batch calculator, one rule a row (core_v0.8.0 and
// later unless `since` names a later release).
struct Rule {
  const char* what;
  std::function<bool(const ParsedArguments&, int world, const std::map<std::string, std::string>& env)> broken;
  // The values the rule read, said after it where broken ("world" is torchrun's GPU count): what to change.
  std::vector<std::string_view> shows = {};
  const char* since = nullptr;  // the first release that enforces it; nullptr: every release listed
  const char* until = nullptr;  // the first release that no longer does; nullptr: every later one still does
};

bool value_is(const ParsedArguments& a, const char* name, const char* fallback, const char* wanted) {
  const auto it = a.values.find(name);
  const std::string v = it == a.values.end() || it->second.empty() ? fallback : it->second[0];
  return v == wanted;
}

double num(const ParsedArguments& a, const char* name, double fallback) { return a.number(name).value_or(fallback); }

// TP x PP x CP: the GPUs one data-parallel replica takes.
double model_parallel(const ParsedArguments& a) {
  return num(a, "tensor-model-parallel-size", 1) * num(a, "pipeline-model-parallel-size", 1) *
         num(a, "context-parallel-size", 1);
}

// --rampup-batch-size's three values as Megatron reads them (int() of each), or nothing when they are not three
// whole numbers with start > 0, increment > 0 and samples >= 0.
struct Rampup {
  double start, increment, samples;
};
std::optional<Rampup> rampup(const ParsedArguments& a) {
  const auto it = a.values.find("rampup-batch-size");
  if (it == a.values.end() || it->second.size() != 3) return std::nullopt;
  double v[3];
  for (size_t k = 0; k < 3; ++k) {
    if (!argparse_accepts(it->second[k], ArgparseType::kInt)) return std::nullopt;
    v[k] = argparse_number(it->second[k]).value_or(-1);
  }
  // Samples 0 passes the calculator's own assert (>= 0) but divides by zero in its first update.
  if (!(v[0] > 0 && v[1] > 0 && v[2] > 0)) return std::nullopt;
  return Rampup{v[0], v[1], v[2]};
}

bool divides(double whole, double part) { return part > 0 && std::fmod(whole, part) == 0; }

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"world size must be divisible by TP x PP x CP",
       [](auto& a, int w, auto&) { return w > 0 && !divides(w, model_parallel(a)); },
       {"world", "tensor-model-parallel-size", "pipeline-model-parallel-size", "context-parallel-size"}},
      {"global batch must be divisible by micro-batch x DP, DP = world / (TP x PP x CP)",
       [](auto& a, int w, auto&) {
         const double mp = model_parallel(a);
         return w > 0 && divides(w, mp) &&
                !divides(num(a, "global-batch-size", 0), num(a, "micro-batch-size", 1) * (w / mp));
       },
       {"global-batch-size", "micro-batch-size", "world", "tensor-model-parallel-size", "pipeline-model-parallel-size",
        "context-parallel-size"}},
      // RampupBatchsizeNumMicroBatchesCalculator (megatron/core/num_microbatches_calculator.py) and validate_args.
      {"rampup-batch-size takes three positive whole numbers, <start batch size> <batch size increment> <ramp-up "
       "samples>",
       [](auto& a, int, auto&) { return a.has("rampup-batch-size") && !rampup(a); },
       {"rampup-batch-size"}},
      {"rampup-batch-size: global batch minus the start must be positive and divisible by the increment",
       [](auto& a, int w, auto&) {
         const auto r = rampup(a);
         // Without --global-batch-size Megatron takes micro-batch x DP; with the world unknown, nothing to hold.
         const double mp = model_parallel(a);
         const double nan = std::numeric_limits<double>::quiet_NaN();
         const double global = a.has("global-batch-size") ? num(a, "global-batch-size", nan)
                               : w > 0 && divides(w, mp)  ? num(a, "micro-batch-size", 1) * (w / mp)
                                                          : nan;
         if (!r || std::isnan(global)) return false;
         const double diff = global - r->start;
         return diff <= 0 || !divides(diff, r->increment);
       },
       {"rampup-batch-size", "global-batch-size"}},
      {"rampup-batch-size: the start and the increment must be divisible by micro-batch x DP, as every batch of the "
       "ramp must be (or --decrease-batch-size-if-needed, core_v0.13.0)",
       [](auto& a, int w, auto&) {
         const auto r = rampup(a);
         const double mp = model_parallel(a);
         if (!r || w <= 0 || !divides(w, mp) || a.has("decrease-batch-size-if-needed")) return false;
         const double per_pass = num(a, "micro-batch-size", 1) * (w / mp);
         return !divides(r->start, per_pass) || !divides(r->increment, per_pass);
       },
       {"rampup-batch-size", "micro-batch-size", "world", "tensor-model-parallel-size", "pipeline-model-parallel-size",
        "context-parallel-size"}},
      {"rampup-batch-size needs sample-based training (train-samples), not train-iters",
       [](auto& a, int, auto&) { return a.has("rampup-batch-size") && a.has("train-iters"); },
       {"train-iters"}},
      {"num-layers must be divisible by the pipeline size (uneven first/last stages leave the rest divisible)",
       [](auto& a, int, auto&) {
         const double pp = num(a, "pipeline-model-parallel-size", 1);
         const double first = num(a, "decoder-first-pipeline-num-layers", 0);
         const double last = num(a, "decoder-last-pipeline-num-layers", 0);
         const double rest = num(a, "num-layers", 0) - first - last;
         const double stages = pp - (first > 0) - (last > 0);
         return stages > 0 ? !divides(rest, stages) : rest != 0;
       },
       {"num-layers", "pipeline-model-parallel-size", "decoder-first-pipeline-num-layers",
        "decoder-last-pipeline-num-layers"}},
      {"layers per pipeline stage must be divisible by num-layers-per-virtual-pipeline-stage, with PP > 1 "
       "(PP > 2 with no-overlap-p2p-communication)",
       [](auto& a, int, auto&) {
         if (!a.has("num-layers-per-virtual-pipeline-stage")) return false;
         const double pp = num(a, "pipeline-model-parallel-size", 1);
         return pp <= (a.has("no-overlap-p2p-communication") ? 2 : 1) ||
                !divides(num(a, "num-layers", 0) / pp, num(a, "num-layers-per-virtual-pipeline-stage", 1));
       }},
      {"num-virtual-stages-per-pipeline-rank needs PP > 1 (PP > 2 with no-overlap-p2p-communication)",
       [](auto& a, int, auto&) {
         return a.has("num-virtual-stages-per-pipeline-rank") &&
                num(a, "pipeline-model-parallel-size", 1) <= (a.has("no-overlap-p2p-communication") ? 2 : 1);
       }},
      {"at most one of num-layers-per-virtual-pipeline-stage, num-virtual-stages-per-pipeline-rank and "
       "pipeline-model-parallel-layout (core_v0.13.0)",
       [](auto& a, int, auto&) {
         return a.has("num-layers-per-virtual-pipeline-stage") + a.has("num-virtual-stages-per-pipeline-rank") +
                    a.has("pipeline-model-parallel-layout") >
                1;
       }},
      {"uneven first or last pipeline stages take num-virtual-stages-per-pipeline-rank, not "
       "num-layers-per-virtual-pipeline-stage (core_v0.13.0)",
       [](auto& a, int, auto&) {
         return a.has("num-layers-per-virtual-pipeline-stage") &&
                (a.has("decoder-first-pipeline-num-layers") || a.has("decoder-last-pipeline-num-layers"));
       }},
      {"with num-virtual-stages-per-pipeline-rank, the first, the last and each middle stage's layers must be "
       "divisible by it (TransformerConfig, core_v0.13.0)",
       [](auto& a, int, auto&) {
         if (!a.has("num-virtual-stages-per-pipeline-rank")) return false;
         const double vpp = num(a, "num-virtual-stages-per-pipeline-rank", 1);
         const double pp = num(a, "pipeline-model-parallel-size", 1);
         const double first = num(a, "decoder-first-pipeline-num-layers", 0);
         const double last = num(a, "decoder-last-pipeline-num-layers", 0);
         const double middle_stages = pp - (first > 0) - (last > 0);
         const double middle_layers = num(a, "num-layers", 0) - first - last;
         return !divides(first, vpp) || !divides(last, vpp) ||
                (middle_stages > 0 &&
                 (!divides(middle_layers, middle_stages) || !divides(middle_layers / middle_stages, vpp)));
       }},
      // arguments.py asserts it only where it derives kv_channels from them (no --kv-channels given).
      {"hidden-size must be divisible by num-attention-heads (or give --kv-channels)",
       [](auto& a, int, auto&) {
         return !a.has("kv-channels") && !divides(num(a, "hidden-size", 0), num(a, "num-attention-heads", 1));
       },
       {"hidden-size", "num-attention-heads"}},
      {"num-attention-heads and num-query-groups must be divisible by TP",
       [](auto& a, int, auto&) {
         const double tp = num(a, "tensor-model-parallel-size", 1);
         return !divides(num(a, "num-attention-heads", tp), tp) || !divides(num(a, "num-query-groups", tp), tp);
       },
       {"num-attention-heads", "num-query-groups", "tensor-model-parallel-size"}},
      {"seq-length must be divisible by 2 x CP",
       [](auto& a, int, auto&) {
         const double cp = num(a, "context-parallel-size", 1);
         return cp > 1 && !divides(num(a, "seq-length", 0), 2 * cp);
       },
       {"seq-length", "context-parallel-size"}},
      {"max-position-embeddings must be at least seq-length",
       [](auto& a, int, auto&) { return num(a, "max-position-embeddings", 1e300) < num(a, "seq-length", 0); }},
      {"min-lr must not exceed lr", [](auto& a, int, auto&) { return num(a, "min-lr", 0) > num(a, "lr", 1e300); }},
      {"exactly one of train-samples and train-iters",
       [](auto& a, int, auto&) { return a.has("train-samples") == a.has("train-iters"); }},
      {"train-samples goes with lr-warmup-samples and lr-decay-samples, not their -iters forms",
       [](auto& a, int, auto&) {
         return a.has("train-samples") && (a.has("lr-warmup-iters") || a.has("lr-decay-iters"));
       }},
      {"tp-comm-overlap needs sequence-parallel",
       [](auto& a, int, auto&) { return a.has("tp-comm-overlap") && !a.has("sequence-parallel"); }},
      {"overlap-param-gather needs use-distributed-optimizer and overlap-grad-reduce",
       [](auto& a, int, auto&) {
         return a.has("overlap-param-gather") && !(a.has("use-distributed-optimizer") && a.has("overlap-grad-reduce"));
       }},
      {"selective recompute takes no recompute-method",
       [](auto& a, int, auto&) {
         auto g = a.values.find("recompute-granularity");
         return g != a.values.end() && !g->second.empty() && g->second[0] == "selective" && a.has("recompute-method");
       }},
      {"bf16 and fp16 exclude each other", [](auto& a, int, auto&) { return a.has("bf16") && a.has("fp16"); }},
      // core_v0.8.0's local layers normalise with apex's FusedLayerNorm, which asserts LayerNorm; core_v0.13.0's
      // take torch's RMSNorm too (megatron/core/transformer/torch_norm.py).
      {"transformer-impl local runs LayerNorm only (FusedLayerNorm asserts it) before core_v0.13.0",
       [](auto& a, int, auto&) {
         return value_is(a, "transformer-impl", "transformer_engine", "local") &&
                value_is(a, "normalization", "LayerNorm", "RMSNorm");
       },
       {"transformer-impl", "normalization"},
       nullptr,
       "core_v0.13.0"},
      {"expert-model-parallel-size above 1 does not run in fp16 (arguments.py)",
       [](auto& a, int, auto&) { return a.has("fp16") && num(a, "expert-model-parallel-size", 1) > 1; },
       {"expert-model-parallel-size"}},
      {"num-experts must be divisible by expert-model-parallel-size",
       [](auto& a, int, auto&) {
         const double ep = num(a, "expert-model-parallel-size", 1);
         return ep > 1 && !divides(num(a, "num-experts", 0), ep);
       },
       {"num-experts", "expert-model-parallel-size"}},
      {"moe-expert-capacity-factor needs moe-token-dispatcher-type alltoall (TransformerConfig, core_v0.8.0)",
       [](auto& a, int, auto&) {
         auto d = a.values.find("moe-token-dispatcher-type");
         return a.has("moe-expert-capacity-factor") &&
                (d == a.values.end() || d->second.empty() || d->second[0] != "alltoall");
       }},
      {"use-torch-fsdp2 needs no-gradient-accumulation-fusion (the fusion is on by default), ckpt-format "
       "torch_dist or torch_dcp, and no fp16 (core_v0.13.0)",
       [](auto& a, int, auto&) {
         return a.has("use-torch-fsdp2") && (!a.has("no-gradient-accumulation-fusion") || a.has("fp16") ||
                                             !(value_is(a, "ckpt-format", "torch_dist", "torch_dist") ||
                                               value_is(a, "ckpt-format", "torch_dist", "torch_dcp")));
       },
       {"ckpt-format"}},
      // schedules.py forward_backward_pipelining_with_interleaving: a group of N micro-batches per virtual stage
      // needs PP <= N <= M, and M mod N either 0 or at least PP.
      {"microbatch-group-size-per-virtual-pipeline-stage must lie between PP and the micro-batches M, and M mod it "
       "be 0 or at least PP (schedules.py)",
       [](auto& a, int w, auto&) {
         if (!a.has("microbatch-group-size-per-virtual-pipeline-stage")) return false;
         const double pp = num(a, "pipeline-model-parallel-size", 1),
                      group = num(a, "microbatch-group-size-per-virtual-pipeline-stage", 1);
         const double mp = model_parallel(a);
         if (w <= 0 || !divides(w, mp) || !a.has("global-batch-size")) return group < pp;
         const double m = num(a, "global-batch-size", 0) / (num(a, "micro-batch-size", 1) * (w / mp));
         const double rest = std::fmod(m, group);
         return group < pp || group > m || (rest > 0 && rest < pp);
       },
       {"microbatch-group-size-per-virtual-pipeline-stage", "pipeline-model-parallel-size", "global-batch-size"},
       "core_v0.13.0"},
      // TransformerConfig.__post_init__ (both releases).
      {"recompute-granularity full needs recompute-method uniform or block and recompute-num-layers",
       [](auto& a, int, auto&) {
         if (!value_is(a, "recompute-granularity", "", "full")) return false;
         return !a.has("recompute-num-layers") ||
                !(value_is(a, "recompute-method", "", "uniform") || value_is(a, "recompute-method", "", "block"));
       },
       {"recompute-method", "recompute-num-layers"}},
      // ModelParallelConfig.__post_init__ (both releases).
      {"expert-model-parallel-size > 1 with tensor-model-parallel-size > 1 needs sequence-parallel",
       [](auto& a, int, auto&) {
         return num(a, "expert-model-parallel-size", 1) > 1 && num(a, "tensor-model-parallel-size", 1) > 1 &&
                !a.has("sequence-parallel");
       },
       {"expert-model-parallel-size", "tensor-model-parallel-size"}},
      {"num-experts: Megatron-Core has no biases with MoE; give disable-bias-linear (TransformerConfig)",
       [](auto& a, int, auto&) { return a.has("num-experts") && !a.has("disable-bias-linear"); },
       {"num-experts"},
       "core_v0.13.0"},
      {"moe-router-topk 1 with a softmax router needs moe-router-pre-softmax (a softmax over one expert has no "
       "gradient; TransformerConfig)",
       [](auto& a, int, auto&) {
         return a.has("num-experts") && num(a, "moe-router-topk", 2) == 1 && !a.has("moe-router-pre-softmax") &&
                value_is(a, "moe-router-score-function", "softmax", "softmax") &&
                !value_is(a, "moe-router-load-balancing-type", "aux_loss", "sinkhorn");
       },
       {"moe-router-topk"},
       "core_v0.13.0"},
      {"use-torch-fsdp2 needs PP 1, EP 1, no distributed optimizer and untied embeddings (core_v0.13.0)",
       [](auto& a, int, auto&) {
         return a.has("use-torch-fsdp2") &&
                (num(a, "pipeline-model-parallel-size", 1) != 1 || num(a, "expert-model-parallel-size", 1) != 1 ||
                 a.has("use-distributed-optimizer") || !a.has("untie-embeddings-and-output-weights"));
       }},
      {"CUDA_DEVICE_MAX_CONNECTIONS=1 must be set with TP or CP > 1 (export it before torchrun; and must not be with "
       "use-torch-fsdp2)",
       [](auto& a, int, auto& env) {
         auto it = env.find("CUDA_DEVICE_MAX_CONNECTIONS");
         const bool one = it != env.end() && it->second == "1";
         if (a.has("use-torch-fsdp2")) return one;
         const bool needs = num(a, "tensor-model-parallel-size", 1) > 1 || num(a, "context-parallel-size", 1) > 1 ||
                            a.has("sequence-parallel");
         return needs && !one;
       }},
  };
  return table;
}

}  // namespace

std::optional<double> ParsedArguments::number(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end() || it->second.size() != 1) return std::nullopt;
  return argparse_number(it->second[0]);  // as Megatron's int() or float() reads it: 4_095 is 4095
}

std::vector<Argument> megatron_arguments(const LaunchSpec& spec, const std::string& version) {
  const auto& moe = spec.arch.moe;
  if (const MegatronFlag* freq = spec.data->megatron_flag("moe-layer-freq");
      moe.enabled() && moe.every > 1 && !version.empty() && freq &&
      std::find(freq->versions.begin(), freq->versions.end(), version) == freq->versions.end())
    throw FieldError("plan architecture",
                     "MoE every " + std::to_string(moe.every) + " layers has no Megatron-LM " + version +
                         " spelling (" + long_option("moe-layer-freq") + " is " + join(freq->versions, ", ") +
                         "'s); accepted: an MoE layer every layer, or --target-version " + freq->versions.back());
  std::vector<Argument> a;
  add_model(spec, a);
  add_layout(spec, a);
  add_training(spec, a);
  return a;
}

std::string argument_words(const Argument& argument) {
  std::string out = long_option(argument.name);
  // "$NAME" stays a variable the script sets; everything else is a literal word.
  for (const auto& v : argument.values) out += " " + (v.rfind('$', 0) == 0 ? "\"" + v + "\"" : shell_quote(v));
  return out;
}

std::string arguments_array(const std::string& name, const std::vector<Argument>& arguments) {
  std::string out = name + "=(\n";
  for (const auto& arg : arguments) out += "  " + argument_words(arg) + "\n";
  return out + ")\n";
}

std::string environment_lines(const LaunchSpec& spec) {
  std::string out;
  const bool fsdp = spec.layout.zero_stage == 3;
  for (const auto& e : spec.data->environment) {
    if (fsdp && e.name == "CUDA_DEVICE_MAX_CONNECTIONS") continue;  // FSDP2 asserts it is not 1
    out += "export " + e.name + "=" + shell_quote(e.value) + "\n";
  }
  return out;
}

std::vector<std::string> argument_list(const std::vector<Argument>& arguments) {
  std::vector<std::string> words;
  for (const auto& a : arguments) {
    words.push_back(long_option(a.name));
    words.insert(words.end(), a.values.begin(), a.values.end());
  }
  return words;
}

ParsedArguments parse_arguments(const std::vector<std::string>& words, const std::map<std::string, MegatronFlag>& flags,
                                const std::string& program, const std::string& version) {
  ParsedArguments out;
  for (size_t i = 0; i < words.size();) {
    const std::string& word = words[i++];
    const std::optional<std::string> written = option_name(word);
    if (!written) {
      out.problems.push_back("unexpected value '" + word + "' (no option takes it)");
      continue;
    }
    const auto [option, attached] = split_attached(*written);
    const std::optional<std::string> name = option;
    const std::string w = long_option(option);
    const auto it = flags.find(*name);
    const MegatronFlag* f = it == flags.end() ? nullptr : &it->second;
    if (!f || (!version.empty() && std::find(f->versions.begin(), f->versions.end(), version) == f->versions.end())) {
      out.problems.push_back(w + " is not an option of " + program + (version.empty() ? "" : " " + version) +
                             (f ? " (" + join(f->versions, ", ") + " has it)" : ""));
      while (i < words.size() && !argparse_option_like(words[i])) ++i;
      continue;
    }
    std::vector<std::string>& values = out.values[*name];
    values.clear();
    const size_t want = f->nargs == MegatronFlag::kAnyValues ? words.size() : static_cast<size_t>(f->nargs);
    if (attached) {
      // "--lr=3e-4": the one value argparse gives the option; a flag taking none refuses it.
      if (f->nargs == 0)
        out.problems.push_back(word + ": " + w + " takes no value");
      else
        values.push_back(*attached);
    } else {
      while (values.size() < want && i < words.size() && !argparse_option_like(words[i])) values.push_back(words[i++]);
    }
    if (f->nargs != MegatronFlag::kAnyValues && values.size() != want && !(attached && f->nargs == 0))
      out.problems.push_back(w + " expects " + std::to_string(f->nargs) + " value(s)");
    if (f->at_least_one && values.empty()) out.problems.push_back(w + " expects at least one value");
    for (const auto& v : values) {
      // A word the shell expands ("$TP", "${TP:-8}", `…`) is known only when the script runs.
      const bool expanded = v.find_first_of("$`") != std::string::npos;
      if (!expanded && !argparse_accepts(v, f->type))
        out.problems.push_back(w + " " + v + ": " +
                               (f->type == ArgparseType::kInt ? "not an int; accepted: a whole number"
                                                              : "not a float; accepted: a number such as 3e-4"));
      else if (!f->choices.empty() && std::none_of(f->choices.begin(), f->choices.end(), [&](const std::string& c) {
                 // argparse compares the converted value: 01 is the int choice 1
                 return f->type == ArgparseType::kString || expanded ? c == v
                                                                     : argparse_number(c) == argparse_number(v);
               }))
        out.problems.push_back(w + " " + v + ": accepted: " + join(f->choices, ", "));
    }
  }
  return out;
}

std::string torchrun_command(const std::string& nodes, int gpus_per_node, const std::string& endpoint,
                             const std::string& run_id) {
  return "torchrun " + long_option("nnodes") + " " + nodes + " " + long_option("nproc-per-node") + " " +
         str(gpus_per_node) + " \\\n  " + long_option("rdzv-backend") + " c10d " + long_option("rdzv-endpoint") + " " +
         endpoint + " " + long_option("rdzv-id") + " " + run_id + " \\\n  ";
}

std::vector<std::string> megatron_rule_problems(const ParsedArguments& args, int world_gpus,
                                                const std::map<std::string, std::string>& environment,
                                                const LaunchData& data, const std::string& version) {
  std::vector<std::string> out;
  for (const auto& r : rules()) {
    if (r.since && !release_at_least(data.megatron_versions, version, r.since)) continue;
    if (r.until && release_at_least(data.megatron_versions, version, r.until)) continue;
    if (!r.broken(args, world_gpus, environment)) continue;
    std::string said;
    for (const std::string_view name : r.shows) {
      const std::string n(name);
      const std::string value = n == "world"  ? std::to_string(world_gpus)
                                : args.has(n) ? join(args.values.at(n), " ")  // every value of a list option
                                              : std::string();
      if (!value.empty()) said += (said.empty() ? "" : ", ") + n + " " + value;
    }
    out.push_back(std::string(r.what) + (said.empty() ? "" : " (here " + said + ")"));
  }
  return out;
}

namespace {

// What the arguments state of the layout, the model and the batch on `world` GPUs (rule_problems' facts).
LayoutFacts megatron_facts(const ParsedArguments& a, int world) {
  auto i = [&](const char* name, double fallback) {
    return clamp_to_int(static_cast<long long>(num(a, name, fallback)));
  };
  LayoutFacts f;
  auto& l = f.layout;
  l.tp = i("tensor-model-parallel-size", 1);
  l.pp = i("pipeline-model-parallel-size", 1);
  l.cp = i("context-parallel-size", 1);
  l.ep = i("expert-model-parallel-size", 1);
  l.micro_batch = i("micro-batch-size", 1);
  l.first_stage_layers = i("decoder-first-pipeline-num-layers", 0);
  l.last_stage_layers = i("decoder-last-pipeline-num-layers", 0);
  auto& m = f.job.architecture;
  m.layers = i("num-layers", 0);
  m.heads = i("num-attention-heads", 0);
  if (a.has("group-query-attention")) m.kv_heads = i("num-query-groups", 1);
  m.moe.experts = i("num-experts", 0);
  m.tied_embeddings = !a.has("untie-embeddings-and-output-weights");
  if (a.has("num-virtual-stages-per-pipeline-rank")) {
    l.vpp = i("num-virtual-stages-per-pipeline-rank", 1);
  } else if (const int per_stage = i("num-layers-per-virtual-pipeline-stage", 0); per_stage > 0 && l.pp > 0) {
    l.vpp = std::max(1, m.layers / l.pp / per_stage);
  }
  // A micro-batch group per virtual stage other than PP (core_v0.13.0) lets the micro-batches be a count PP does
  // not divide: the schedule's own rule (below) holds them, not the search's.
  if (a.has("microbatch-group-size-per-virtual-pipeline-stage")) l.vpp = 1;
  // --sequence-parallel with TP 1 is switched off (arguments.py), not refused.
  l.sequence_parallel = a.has("sequence-parallel") && l.tp > 1;
  l.zero_stage = a.has("use-torch-fsdp2") ? 3 : a.has("use-distributed-optimizer") ? 1 : 0;
  f.job.seq = i("seq-length", 0);
  const long long model_parallel = static_cast<long long>(l.tp) * l.pp * l.cp;
  l.dp = clamp_to_int(std::max(1LL, model_parallel > 0 ? world / model_parallel : 1));
  f.job.global_batch = a.has("global-batch-size") ? static_cast<long long>(num(a, "global-batch-size", 0))
                                                  : static_cast<long long>(l.micro_batch) * l.dp;
  f.cluster.gpus = world;
  return f;
}

}  // namespace

std::vector<std::string> check_megatron(const std::string& script, const LaunchData& data, const std::string& version,
                                        const catalog::TrainerRules& rules) {
  const ScriptWords words = read_script_words(script);
  const std::vector<std::string> argv = program_arguments(words, "pretrain_gpt.py");
  if (argv.empty()) return {"no command runs pretrain_gpt.py"};
  ParsedArguments args = parse_arguments(argv, data.megatron_flags, "Megatron-LM", version);
  std::map<std::string, std::string> env;
  long long nodes = 0, per_node = 0;
  for (const auto& c : words.commands) {
    for (size_t k = 0; k < c.size(); ++k) {
      const std::string& w = c[k];
      const size_t eq = w.find('=');
      if ((k == 0 || c[0] == "export") && eq != std::string::npos && eq > 0) env[w.substr(0, eq)] = w.substr(eq + 1);
    }
    // torchrun's counts, either spelling, before the program's own arguments.
    const size_t program = program_index(c, "pretrain_gpt.py");
    if (const auto v = option_value(c, {"nnodes"}, program)) nodes = literal_integer(v->value).value_or(0);
    if (const auto v = option_value(c, {"nproc-per-node", "nproc_per_node"}, program))
      per_node = literal_integer(v->value).value_or(0);
  }
  const auto directives = sbatch_directives(script);  // under SLURM, the job's node count
  if (const auto it = directives.find("nodes"); nodes == 0 && it != directives.end())
    nodes = literal_integer(it->second).value_or(0);
  auto problems = std::move(args.problems);
  const int world = world_size(nodes, per_node);
  for (auto& p : megatron_rule_problems(args, world, env, data, version)) problems.push_back(p);
  // The layout search's rules where the script's own hold and its GPUs are known (a layout over another count
  // fails the rules above first); the trainer's: TP across nodes is the search's preference, not a refusal.
  if (problems.empty() && world > 0) {
    catalog::TrainerRules held = rules;
    held.tp_within_node = false;
    for (auto& p : rule_problems(held, megatron_facts(args, world))) problems.push_back(p);
  }
  return problems;
}

std::optional<long long> literal_integer(const std::string& word) {
  std::string w = word;
  const size_t dflt = w.find(":-");
  if (w.rfind("${", 0) == 0 && dflt != std::string::npos && w.back() == '}') {
    // The default of a name sbatch sets for the job (SLURM_NNODES): the allocation's number, not known here.
    if (w.rfind("${SLURM_", 0) == 0) return std::nullopt;
    w = w.substr(dflt + 2, w.size() - dflt - 3);
  }
  if (w.empty() || w.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  // Past a billion (no launch has that many nodes or GPUs per node) a literal reads as a billion, so that
  // a product of two stays within 64 bits; the rules then refuse it.
  const size_t first = w.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  return w.size() - first > 10 ? kLargestLiteral : std::min(kLargestLiteral, std::stoll(w.substr(first)));
}

std::string emit_megatron(const LaunchSpec& s, const std::string& version) {
  std::string out = "#!/bin/bash\n" + header_comment(s, "Megatron-LM " + version + " (pretrain_gpt.py)", "# ");
  out += "# Run on every node (the SLURM script does that); torchrun starts one process per GPU. Set DATA_PATH to\n"
         "# the preprocessed data's prefix and replace the NullTokenizer with the tokenizer of that data.\n"
         "set -euo pipefail\n\n";
  out += environment_lines(s);
  out += "MEGATRON_LM=\"${MEGATRON_LM:-/opt/Megatron-LM}\"\n"
         "DATA_PATH=\"${DATA_PATH:?set DATA_PATH to the preprocessed data prefix}\"\n"
         "CHECKPOINT_DIR=\"${CHECKPOINT_DIR:-checkpoints}\"\n\n";
  out += arguments_array("MEGATRON_ARGS", megatron_arguments(s, version));
  out += "\n" + torchrun_command("\"${NNODES:-" + str(s.nodes) + "}\"", s.gpus_per_node,
                                 "\"${MASTER_ADDR:-localhost}:${MASTER_PORT:-" + str(s.data->rendezvous_port) + "}\"",
                                 "\"${RDZV_ID:-isoflop}\"") +
         "\"$MEGATRON_LM/pretrain_gpt.py\" \"${MEGATRON_ARGS[@]}\"\n";
  return out;
}

}  // namespace isoflop::emit
