// Reading trainers.yaml: each trainer's runnability rules (which ZeRO stages combine with pipeline or expert
// parallelism, whether it splits stages unevenly, interleaves, splits sequences, …) and the defaults it trains
// with. lib/parallel/trainer_rules evaluates the rules on a layout.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/field_reader.hpp"

namespace isoflop::catalog {

// The rules every trainer entry lists, by id (the keys under `rules:`).
inline constexpr std::array<std::string_view, 12> kTrainerRuleIds = {
    "zero_stages",     "zero_with_pipeline", "zero_with_experts", "zero3_tied_embeddings",
    "tensor_parallel", "tp_within_node",     "sequence_parallel", "pipeline",
    "uneven_stages",   "interleaving",       "context_parallel",  "expert_parallel"};

// Precision gradients are reduced in across data-parallel ranks.
enum class GradReduce { kFp32, kBf16 };

// What a trainer does unless told otherwise (the time model's defaults).
struct TrainerDefaults {
  bool overlap_grad_reduce = false;   // reduce-scatter/all-reduce of gradients during the backward pass
  bool overlap_param_gather = false;  // all-gather of updated weights during the next forward pass
  bool tp_comm_overlap = false;       // tensor-parallel collectives overlapped with the GEMMs
  GradReduce grad_reduce = GradReduce::kFp32;
  std::string source;
  bool operator==(const TrainerDefaults&) const = default;
};

// The positional encodings a trainer's model code builds (model::kPositionalEncodingNames); a plan shapes its
// model with one of them, so that the launch file runs the model planned.
struct TrainerPositions {
  std::vector<std::string> spelled;  // empty: any (the model is the user's own code)
  std::string source;
  bool spells(std::string_view encoding) const;
  bool operator==(const TrainerPositions&) const = default;
};

struct TrainerRules {
  std::string name;                   // "megatron"
  std::string display_name;
  std::string version;                // the release the rules were read in
  std::vector<int> zero_stages;       // zero_stages; empty only when the rules were never loaded
  std::vector<int> zero_stages_fp16;  // zero_stages.fp16_stages: those an fp16 job runs; empty: all of them
  int max_zero_stage_with_pipeline = 3;  // zero_with_pipeline
  int max_zero_stage_with_experts = 3;   // zero_with_experts
  bool zero_experts_scope_model = false; // zero_with_experts applies to any MoE model (else only EP > 1)
  bool zero3_tied_embeddings = true;     // ZeRO-3 runs a model whose output layer shares the embedding's weights
  bool tensor_parallel = true;
  bool tp_within_node = true;
  bool sequence_parallel = true;
  bool pipeline = true;
  bool uneven_stages = false;
  bool interleaving = false;
  int interleaving_min_pp = 2;
  bool context_parallel = false;
  int context_sequence_multiple = 1;  // seq % (multiple · CP) == 0
  bool expert_parallel = false;
  bool expert_parallel_fp16 = true;       // expert_parallel.fp16: EP > 1 in an fp16 job
  std::vector<std::string> rule_sources;  // per rule, in the order of kTrainerRuleIds
  TrainerDefaults defaults;
  TrainerPositions positions;  // positional_encodings (optional in an overlay: absent, any)
  std::string source;
  std::string file;                   // "data/trainers.yaml:12"
  // Not data: set by parallel::as_written where the file isoflop writes for this trainer ("ds_config.json") cannot
  // say all the trainer runs: the file, and the ids of the rules it narrowed. Their violations name the file.
  std::string written_as;
  std::vector<std::string> narrowed_rules;
  // Also set by as_written: the file states no gradient precision, so the trainer reduces in its default
  // (defaults.grad_reduce) whatever the plan chose.
  bool grad_reduce_default_only = false;

  bool loaded() const { return !zero_stages.empty(); }
  // The source of a rule by id ("" for an unknown id).
  std::string rule_source(std::string_view rule) const;
  bool operator==(const TrainerRules&) const = default;
};

TrainerRules parse_trainer(FieldReader& reader);

}  // namespace isoflop::catalog
