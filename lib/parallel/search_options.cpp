// The search's options checked against the job and the cluster, and an infeasible search put in words.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "parallel/search.hpp"
#include "parallel/stages.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::parallel {

namespace {

// The depths nearest `layers` that `pp` stages split evenly, in words: "100 or 104 layers divide over PP 4".
std::string even_depths(int layers, int pp) {
  const int below = layers / pp * pp, above = below + pp;
  return (below > 0 ? std::to_string(below) + " or " : std::string()) + std::to_string(above) +
         " layers divide over PP " + std::to_string(pp) + ": change the model's depth, or plan for this trainer";
}

}  // namespace

void SearchOptions::validate(const JobSpec& job, const ClusterSpec& cluster) const {
  const auto& a = job.architecture;
  auto s = [](long long v) { return std::to_string(v); };
  for (const auto& d : dimensions())
    if (const auto v = d.pinned(pins)) check_range(d, *v);
  // A pinned degree of a form of parallelism the trainer lacks: refused as the pin, before any other check of
  // it, rather than as whichever layout the search happens to reject first.
  if (trainer.loaded()) {
    const auto above_one = [](const std::optional<int>& pin) { return pin && *pin > 1; };
    const struct {
      const char* field;
      const char* rule;
      bool offered, pinned;
    } capabilities[] = {
        {"tp", "tensor_parallel", trainer.tensor_parallel, above_one(pins.tp)},
        {"pp", "pipeline", trainer.pipeline, above_one(pins.pp)},
        {"vpp", "interleaving", trainer.interleaving, above_one(pins.vpp)},
        {"cp", "context_parallel", trainer.context_parallel, above_one(pins.cp)},
        {"ep", "expert_parallel", trainer.expert_parallel, above_one(pins.ep)},
        {"sequence_parallel", "sequence_parallel", trainer.sequence_parallel, pins.sequence_parallel.value_or(false)},
    };
    for (const auto& c : capabilities)
      if (c.pinned && !c.offered) throw FieldError(c.field, missing_capability(trainer, c.rule));
  }
  if (pins.vpp && *pins.vpp > 1 && pins.pp && *pins.pp < least_interleaved_pp(trainer))
    throw FieldError("vpp", "interleaving (VPP " + s(*pins.vpp) + ") needs PP >= " + s(least_interleaved_pp(trainer)) +
                                ", got PP " + s(*pins.pp));
  if (pins.tp && a.heads % *pins.tp != 0)
    throw FieldError("tp", "heads " + s(a.heads) + " are not divisible by TP " + s(*pins.tp));
  // Grouped-query attention: each TP rank holds whole key/value heads (Llama 2 70B's 8 allow TP 8 at most).
  if (pins.tp && a.effective_kv_heads() % *pins.tp != 0)
    throw FieldError("tp", "key/value heads " + s(a.effective_kv_heads()) + " are not divisible by TP " + s(*pins.tp) +
                               "; accepted: a TP that divides " + s(a.effective_kv_heads()));
  if (pins.tp && cluster.gpus % *pins.tp != 0)
    throw FieldError("tp", s(cluster.gpus) + " GPUs are not divisible by TP " + s(*pins.tp));
  const bool edges_pinned = pins.first_stage_layers || pins.last_stage_layers;
  if (pins.pp && a.layers % *pins.pp != 0 && !edges_pinned &&
      !(trainer.uneven_stages && balanced_edge_layers(a.layers, *pins.pp, 1).first > 0))
    throw FieldError("pp", "layers " + s(a.layers) + " are not divisible by PP " + s(*pins.pp) +
                               (!trainer.loaded() || trainer.uneven_stages
                                    ? " (pin the first and last stage layers)"
                                    : " (" + rules_holder(trainer, "uneven_stages") +
                                          " has no layer counts for the first and last stages; " +
                                          even_depths(a.layers, *pins.pp) + ")"));
  if (pins.zero_stage && trainer.loaded() &&
      std::find(trainer.zero_stages.begin(), trainer.zero_stages.end(), *pins.zero_stage) == trainer.zero_stages.end())
    throw FieldError("zero_stage", zero_stage_refusal(trainer, *pins.zero_stage));
  if (pins.zero_stage == 3 && trainer.loaded() && a.tied_embeddings && !trainer.zero3_tied_embeddings)
    throw FieldError("zero_stage", zero3_tied_refusal(trainer, true));
  if (time.grad_reduce)
    if (const auto why = grad_reduce_refusal(trainer, *time.grad_reduce)) throw FieldError("grad_reduce", *why);
  // The step time has no ZeRO-3 without its overlap (prefetched gathers, overlapped reduce-scatters: DeepSpeed's
  // stage-3 default, fitted to its runs), so a pinned ZeRO-3 with an overlap turned off would be timed, and its
  // files written, as on.
  for (const auto& [field, value] : {std::pair{"overlap_grad_reduce", time.overlap_grad_reduce},
                                     std::pair{"overlap_param_gather", time.overlap_param_gather}})
    if (pins.zero_stage == 3 && value == false)
      throw FieldError(field, std::string("off has no ZeRO-3 here: its step time hides the gathers and reduce-scatters "
                                          "behind compute, as DeepSpeed does at stage 3 by default; accepted: on, "
                                          "or ZeRO 0-2"));
  if (pins.cp && job.seq % *pins.cp != 0)
    throw FieldError("cp", "sequence " + s(job.seq) + " is not divisible by CP " + s(*pins.cp));
  Layout pinned;  // the pinned degrees, 1 where open
  pinned.tp = pins.tp.value_or(1);
  pinned.pp = pins.pp.value_or(1);
  pinned.cp = pins.cp.value_or(1);
  pinned.dp = pins.dp.value_or(1);
  const long long product = pinned.gpus();
  // The pins and the GPU count are both the user's: a product that cannot fill the GPUs contradicts them (invalid
  // input, whatever batch a plan chooses).
  if (product > cluster.gpus)
    throw FieldError(
        "gpus", "the pinned TP·PP·CP·DP = " + pinned.gpus_text() + " needs more than the " + s(cluster.gpus) + " GPUs");
  if (cluster.gpus % product != 0)
    throw FieldError(
        "gpus", "the pinned TP·PP·CP·DP = " + pinned.gpus_text() + " does not divide the " + s(cluster.gpus) + " GPUs");
  if (pins.tp && pins.pp && pins.cp && pins.dp && product != cluster.gpus)
    throw FieldError("gpus",
                     "the pinned TP·PP·CP·DP = " + pinned.gpus_text() + " is not the " + s(cluster.gpus) + " GPUs");
  if (pins.dp && pins.micro_batch && job.global_batch % (static_cast<long long>(*pins.dp) * *pins.micro_batch) != 0)
    throw FieldError("global_batch", s(job.global_batch) + " is not divisible by micro-batch·DP = " +
                                         s(static_cast<long long>(*pins.dp) * *pins.micro_batch));
  if (pins.dp && job.global_batch % *pins.dp != 0)
    throw FieldError("dp", s(*pins.dp) + " does not divide the global batch of " + s(job.global_batch) + " sequences");
  for (const auto& [field, layers] : {std::pair{"first_stage_layers", pins.first_stage_layers},
                                      std::pair{"last_stage_layers", pins.last_stage_layers}})
    if (layers && *layers >= a.layers)
      throw FieldError(field, s(*layers) + " leaves no layers for the other stages of the " + s(a.layers));
  if (pins.first_stage_layers && pins.last_stage_layers &&
      *pins.first_stage_layers + *pins.last_stage_layers > a.layers)
    throw FieldError("last_stage_layers", "first " + s(*pins.first_stage_layers) + " and last " +
                                              s(*pins.last_stage_layers) + " stage layers are more than the " +
                                              s(a.layers) + " layers");
  if (pins.micro_batch && job.global_batch % *pins.micro_batch != 0)
    throw FieldError("global_batch",
                     s(job.global_batch) + " is not divisible by the micro-batch " + s(*pins.micro_batch));
  if (pins.ep && !a.moe.enabled() && *pins.ep != 1) throw FieldError("ep", "expert parallelism needs an MoE model");
  if (pins.sequence_parallel && *pins.sequence_parallel && pins.tp && *pins.tp == 1)
    throw FieldError("sequence_parallel", "needs TP > 1");
  if (top_k < 1) throw FieldError("top_k", "must be at least 1");
  if (max_tp && *max_tp < 1) throw FieldError("max_tp", "must be at least 1");
  if (max_cp < 1) throw FieldError("max_cp", "must be at least 1");
  if (!trainer.name.empty() && !trainer.loaded())
    throw InputError("trainer '" + trainer.name + "': its rules were not loaded from the catalog");
}

std::vector<SuggestedChange> suggest_changes(double needed, double usable, const JobSpec& job,
                                             const ClusterSpec& cluster, const SearchOptions& options) {
  std::vector<SuggestedChange> out;
  // More GPUs in whole nodes and a multiple of the pinned degrees' product, so that the pins still divide them;
  // with TP, PP and DP all pinned the GPU count is fixed by them, and more GPUs is no change the pins allow.
  const auto& pins = options.pins;
  const long long per_node = cluster.gpus_per_node;
  const long long pinned = pins.pinned_gpus();
  long long gpus = static_cast<long long>(std::ceil(cluster.gpus * needed / usable));
  // Past one node the count is whole nodes (what --gpus accepts); within one, any multiple of the pins.
  const long long step = gpus > per_node ? std::lcm(per_node, pinned) : pinned;
  gpus = std::max<long long>(step, (gpus + step - 1) / step * step);
  // With TP and PP pinned the GPU count sets DP, which must divide the batch in (pinned) micro-batches.
  bool batch_divides = true;
  if (pins.tp && pins.pp) {
    const long long replica = static_cast<long long>(*pins.tp) * *pins.pp * pins.cp.value_or(1);
    const long long micro = pins.micro_batch.value_or(1);
    const long long most = std::max<long long>(gpus, 64LL * cluster.gpus);
    while (gpus <= most && job.global_batch % (gpus / replica * micro) != 0) gpus += step;
    batch_divides = gpus <= most;
  }
  if (!(pins.tp && pins.pp && pins.dp) && batch_divides)
    out.push_back({"gpus", gpus, std::nullopt, "about: memory per GPU falls roughly in proportion to the GPUs"});
  // ZeRO-3 only where the trainer offers it with the pinned pipeline (Megatron's and DeepSpeed's refuse PP) and
  // with this model's embeddings (Megatron's FSDP2 refuses tied ones).
  const auto& t = options.trainer;
  const bool zero3 = !t.loaded() || (std::find(t.zero_stages.begin(), t.zero_stages.end(), 3) != t.zero_stages.end() &&
                                     (options.pins.pp.value_or(1) == 1 || t.max_zero_stage_with_pipeline >= 3) &&
                                     (!job.architecture.tied_embeddings || t.zero3_tied_embeddings));
  if (options.pins.zero_stage && *options.pins.zero_stage < 3 && zero3)
    out.push_back({"zero_stage", 3, std::nullopt, "ZeRO-3 shards weights, gradients and optimizer states"});
  if (options.pins.recompute && *options.pins.recompute != Recompute::kFull)
    out.push_back({"recompute", std::nullopt, std::string(kRecomputeNames.name(Recompute::kFull)),
                   "full recompute keeps one activation per layer"});
  const double device = cluster.accelerator.memory_bytes * needed / usable;
  char words[96];
  std::snprintf(words, sizeof words, "an accelerator with at least %.0f GB of memory", std::ceil(device / 1e9));
  out.push_back({"gpu", std::nullopt, std::nullopt, words});
  return out;
}

std::string describe(const Infeasibility& why) {
  std::string out = why.reason;
  const char* separator = kToFit;
  for (const auto& c : why.changes) {
    out += separator;
    separator = ", or ";
    out += c.field;
    if (c.number) out += " " + std::to_string(*c.number);
    if (c.text) out += " " + *c.text;
    if (!c.note.empty()) out += " (" + c.note + ")";
  }
  return out;
}

void require_feasible(const SearchResult& result) {
  if (result.infeasible) throw InfeasibleError(describe(*result.infeasible));
}

}  // namespace isoflop::parallel
