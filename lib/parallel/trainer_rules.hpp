// Runnability: whether a layout is well formed (the degrees multiply to the GPUs, the heads, layers and batch
// divide) and whether the named trainer accepts it (its rules are data: data/trainers.yaml, read into
// catalog::TrainerRules). A violation names the rule by id and says why in words.
#pragma once

#include <optional>
#include <string>

#include "catalog/trainers.hpp"
#include "parallel/layout.hpp"

namespace isoflop::parallel {

struct RuleViolation {
  std::string rule;    // a structural id ("gpus", "heads", "batch", "stages", …) or a trainer rule id
  std::string reason;  // "deepspeed runs ZeRO stage at most 1 with pipeline parallelism, got ZeRO-3 with PP 35"
  bool operator==(const RuleViolation&) const = default;
};

// Whether a violation's reason is put in words: a search keeps the words of few of the layouts it rejects, and
// building them for every one was most of its time.
enum class Words { kWith, kWithout };

struct RuleContext {
  bool allow_tp_across_nodes = false;  // the user asked for TP beyond a node (tp_within_node)
};

// The checks that hold for every trainer: n = TP·PP·CP·DP, heads and KV heads % TP, the stage split
// (pipeline_stage_layers), B % (b·DP), interleaving needs PP > 1 and m % PP == 0 (Narayanan et al. 2021
// §2.2.2), ZeRO 0..3, sequence parallelism needs TP > 1, seq % CP, experts % EP and DP % EP.
std::optional<RuleViolation> structural_violation(const Layout& layout, const JobSpec& job, const ClusterSpec& cluster,
                                                  Words words = Words::kWith);

// The trainer's rules, in the order of catalog::kTrainerRuleIds; the first one violated.
std::optional<RuleViolation> trainer_violation(const catalog::TrainerRules& trainer, const Layout& layout,
                                               const JobSpec& job, const ClusterSpec& cluster,
                                               const RuleContext& context = {}, Words words = Words::kWith);

// The trainer's rules narrowed to what the launch file isoflop writes for it can express (`emit`), so that what
// `plan` and `layout` rank first is what `emit` writes. Megatron-DeepSpeed has no option for the first and last
// stages' layers (DeepSpeed's PipelineModule splits by its own partition method), and the NeMo config written
// (megatron_gpt_config.yaml) has no key for them and shards no more than the optimizer state
// (distributed_fused_adam), where NeMo 2's MegatronStrategy also runs Megatron-Core's FSDP (ZeRO-3); neither file
// states the gradients' precision, so only the trainer's default runs (grad_reduce_default_only). A rule only narrows
// where the trainer's (perhaps overlaid) rule allows more; other trainers' rules are returned as they are.
catalog::TrainerRules as_written(catalog::TrainerRules rules);

// Why gradients reduced in `chosen` cannot be launched under `rules` (as_written): the file written for the
// trainer states no precision and the trainer's default is another. None where the file can say it.
std::optional<std::string> grad_reduce_refusal(const catalog::TrainerRules& rules, catalog::GradReduce chosen);

// The depth multiple offered to a trainer that splits the layers over pipeline stages evenly only: 4 divides
// over PP 2 and 4, and with TP 8 and 128-wide heads still leaves the width its steps (plan/plan.cpp).
constexpr int kEvenStagesDepthMultiple = 4;

// Who a violation of `rule` (an id of kTrainerRuleIds) is about: the trainer ("deepspeed"), or the file isoflop
// writes for it ("the ds_config.json isoflop writes for deepspeed") where as_written narrowed that rule.
std::string rules_holder(const catalog::TrainerRules& rules, std::string_view rule);

// "deepspeed offers no ZeRO-3 (its stages: 0, 1, 2)", naming the file where as_written narrowed the stages: the
// words of the zero_stages rule, for a layout's stage or a pinned one.
std::string zero_stage_refusal(const catalog::TrainerRules& rules, int stage);

// "megatron runs ZeRO-3 only with untied embeddings, and this model's output layer shares …": the words of the
// zero3_tied_embeddings rule, for a layout's stage, or for a pinned one with the stages accepted ("; accepted: 0, 1").
std::string zero3_tied_refusal(const catalog::TrainerRules& rules, bool pinned);

// The words of a form of parallelism the trainer lacks, for `rule` one of tensor_parallel, sequence_parallel,
// pipeline, interleaving, context_parallel and expert_parallel ("deepspeed has no interleaved schedule (VPP must
// be 1)"): a layout's violation or a pinned degree's refusal.
std::string missing_capability(const catalog::TrainerRules& rules, std::string_view rule);

// The least PP on which the trainer runs an interleaved schedule: 2 (VPP chunks need a second stage to
// alternate with, Narayanan et al. 2021 §2.2) or the trainer's own minimum (interleaving.min_pp).
int least_interleaved_pp(const catalog::TrainerRules& rules);

// Both: structural first, then the trainer's (none when `trainer` was never loaded).
std::optional<RuleViolation> runnability_violation(const catalog::TrainerRules& trainer, const Layout& layout,
                                                   const JobSpec& job, const ClusterSpec& cluster,
                                                   const RuleContext& context = {});

}  // namespace isoflop::parallel
