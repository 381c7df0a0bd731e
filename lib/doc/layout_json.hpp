// JSON of the layout search's parts, one shape wherever they appear (`layout` and `plan`):
//
//   Layout: the knobs by the table of dimensions (parallel/dimensions.hpp), in its order:
//     {"tp", "pp", "dp", "ep", "vpp", "micro_batch", "zero_stage", "recompute" ("none"|"selective"|"full"),
//      "sequence_parallel" (true|false)}
//   RankedLayout (an element of "layouts"): the knobs, then
//     "memory_gib" (the sum of the breakdown, derived), "memory_breakdown": {"weights_gib", "gradients_gib",
//     "optimizer_gib", "activations_gib", "embeddings_logits_gib"}, "step_time_s", "step_breakdown":
//     {"compute_s", "recompute_s", "tp_comm_s", "cp_comm_s", "pp_comm_s", "logits_s", "embedding_s", "bubble_s",
//     "dp_comm_s", "embedding_sync_s", "moe_comm_s", "optimizer_s"} (they sum to step_time_s),
//     "hidden_by_overlap": {"tp_s", "cp_s", "dp_s"} (traffic the overlaps hid),
//     "step_settings": {"overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap", "grad_reduce_bytes"},
//     "tokens_per_s", "model_flops_per_step", "hardware_flops_per_step",
//     "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu"
//   LayoutPins: the knobs, each null when open.
//   SearchOptions: {"trainer" (name or null), "pins", "max_tp" (null: GPUs per node), "max_cp", "max_vpp",
//     "max_micro_batch", "objective", "top_k", "memory_headroom_fraction", "overlap_grad_reduce",
//     "overlap_param_gather", "tp_comm_overlap", "grad_reduce" ("fp32"|"bf16"); null: the trainer's default}
//   PrunedFamily: {"tp", "pp", "cp", "rule", "reason", "min_memory_gib"}
//   Infeasibility: {"reason", "needed_memory_gib", "usable_memory_gib", "closest": {knobs},
//     "changes": [{"field", "value" (number|string|null), "note"}]}
//
// Memory is written in GiB (bytes / 2^30, exact both ways).
#pragma once

#include "doc/document.hpp"
#include "parallel/search.hpp"

namespace isoflop::parallel {

void to_json(doc::Json& j, const Layout& layout);
void from_json(const doc::Json& j, Layout& layout);

void to_json(doc::Json& j, const LayoutPins& pins);
void from_json(const doc::Json& j, LayoutPins& pins);

void to_json(doc::Json& j, const RankedLayout& layout);
void from_json(const doc::Json& j, RankedLayout& layout);

void to_json(doc::Json& j, const SearchOptions& options);
void from_json(const doc::Json& j, SearchOptions& options);

void to_json(doc::Json& j, const PrunedFamily& family);
void from_json(const doc::Json& j, PrunedFamily& family);

void to_json(doc::Json& j, const SuggestedChange& change);
void from_json(const doc::Json& j, SuggestedChange& change);

void to_json(doc::Json& j, const Infeasibility& infeasible);
void from_json(const doc::Json& j, Infeasibility& infeasible);

// A knob's value as JSON (integer, recompute name, or boolean) and back (fails at the node when out of range).
doc::Json knob_json(const Dimension& dimension, int value);
int read_knob(const doc::Json& value, const Dimension& dimension);

// The job's own settings (its architecture is the document's "architecture"):
//   {"seq", "global_batch", "bytes_per_value", "optimizer" ("adam"|"megatron-adam")}
doc::Json job_settings_json(const JobSpec& job);
void read_job_settings(const doc::Json& j, JobSpec& job);

}  // namespace isoflop::parallel
