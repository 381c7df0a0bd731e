// JSON of the layout search's parts, one shape wherever they appear (`layout` and `plan`). The knobs of a
// layout (and of the pins, null when open) follow the table of dimensions (parallel/dimensions.hpp) in its
// order: "tp", "pp", "dp", "ep", "vpp", "micro_batch", "zero_stage", "recompute" ("none"|"selective"|"full"),
// "sequence_parallel" (true|false). Memory is written in GiB (bytes / 2^30, exact both ways).
// The step breakdown's lines sum to step_time_s; "hidden_by_overlap" is the traffic the overlaps hid (not part
// of the step time). Search options: "trainer" null when none; the overlap flags and "grad_reduce" null for the
// trainer's default.
#pragma once

#include "core/bytes.hpp"
#include "doc/fields.hpp"
#include "parallel/search.hpp"

namespace isoflop::parallel {

void to_json(doc::Json& j, const Layout& layout);
void from_json(const doc::Json& j, Layout& layout);

void to_json(doc::Json& j, const LayoutPins& pins);
void from_json(const doc::Json& j, LayoutPins& pins);

// A knob's value as JSON (integer, recompute name, or boolean) and back (fails at the node when out of range).
doc::Json knob_json(const Dimension& dimension, int value);
int read_knob(const doc::Json& value, const Dimension& dimension);

}  // namespace isoflop::parallel

namespace isoflop::doc {

template <>
inline constexpr auto fields<parallel::MemoryBreakdown> =
    std::tuple{field("weights_gib", &parallel::MemoryBreakdown::weights_bytes, scaled(kGiB)),
               field("gradients_gib", &parallel::MemoryBreakdown::gradients_bytes, scaled(kGiB)),
               field("optimizer_gib", &parallel::MemoryBreakdown::optimizer_bytes, scaled(kGiB)),
               field("activations_gib", &parallel::MemoryBreakdown::activations_bytes, scaled(kGiB)),
               field("embeddings_logits_gib", &parallel::MemoryBreakdown::embeddings_logits_bytes, scaled(kGiB))};

template <>
inline constexpr auto fields<parallel::StepBreakdown> =
    std::tuple{field("compute_s", &parallel::StepBreakdown::compute_s),
               field("recompute_s", &parallel::StepBreakdown::recompute_s),
               field("tp_comm_s", &parallel::StepBreakdown::tp_comm_s),
               field("cp_comm_s", &parallel::StepBreakdown::cp_comm_s),
               field("pp_comm_s", &parallel::StepBreakdown::pp_comm_s),
               field("logits_s", &parallel::StepBreakdown::logits_s),
               field("embedding_s", &parallel::StepBreakdown::embedding_s),
               field("bubble_s", &parallel::StepBreakdown::bubble_s),
               field("dp_comm_s", &parallel::StepBreakdown::dp_comm_s),
               field("embedding_sync_s", &parallel::StepBreakdown::embedding_sync_s),
               field("moe_comm_s", &parallel::StepBreakdown::moe_comm_s),
               field("optimizer_s", &parallel::StepBreakdown::optimizer_s),
               added_later(field("layer_overhead_s", &parallel::StepBreakdown::layer_overhead_s))};

// An element of "layouts": the knobs, then memory (the total is the breakdown's sum) and step time.
template <>
inline constexpr auto fields<parallel::RankedLayout> =
    std::tuple{flat(&parallel::RankedLayout::layout),
               derived("memory_gib", [](const parallel::RankedLayout& r) { return r.memory.total_bytes() / kGiB; }),
               field("memory_breakdown", &parallel::RankedLayout::memory),
               via(&parallel::RankedLayout::time, field("step_time_s", &parallel::StepTime::step_time_s),
                   field("step_breakdown", &parallel::StepTime::breakdown),
                   via(&parallel::StepTime::breakdown,
                       group("hidden_by_overlap", field("tp_s", &parallel::StepBreakdown::tp_hidden_s),
                             field("cp_s", &parallel::StepBreakdown::cp_hidden_s),
                             field("dp_s", &parallel::StepBreakdown::dp_hidden_s))),
                   group("step_settings",
                         via(&parallel::StepTime::settings,
                             field("overlap_grad_reduce", &parallel::TimeSettings::overlap_grad_reduce),
                             field("overlap_param_gather", &parallel::TimeSettings::overlap_param_gather),
                             field("tp_comm_overlap", &parallel::TimeSettings::tp_comm_overlap),
                             field("grad_reduce_bytes", &parallel::TimeSettings::grad_reduce_bytes))),
                   field("tokens_per_s", &parallel::StepTime::tokens_per_s),
                   field("model_flops_per_step", &parallel::StepTime::model_flops_per_step),
                   field("hardware_flops_per_step", &parallel::StepTime::hardware_flops_per_step),
                   field("model_tflops_per_gpu", &parallel::StepTime::model_tflops_per_gpu),
                   field("hardware_tflops_per_gpu", &parallel::StepTime::hardware_tflops_per_gpu),
                   field("mfu", &parallel::StepTime::mfu), field("hfu", &parallel::StepTime::hfu))};

// "max_tp" null: GPUs per node.
template <>
inline constexpr auto fields<parallel::SearchOptions> = std::tuple{
    via(&parallel::SearchOptions::trainer, field("trainer", &catalog::TrainerRules::name, null_when_empty())),
    field("pins", &parallel::SearchOptions::pins), field("max_tp", &parallel::SearchOptions::max_tp),
    field("max_cp", &parallel::SearchOptions::max_cp), field("max_vpp", &parallel::SearchOptions::max_vpp),
    field("max_micro_batch", &parallel::SearchOptions::max_micro_batch),
    field("objective", &parallel::SearchOptions::objective, names(parallel::kObjectiveNames)),
    field("top_k", &parallel::SearchOptions::top_k),
    via(&parallel::SearchOptions::memory,
        field("memory_headroom_fraction", &parallel::MemoryOptions::headroom_fraction)),
    via(&parallel::SearchOptions::time, field("overlap_grad_reduce", &parallel::TimeOptions::overlap_grad_reduce),
        field("overlap_param_gather", &parallel::TimeOptions::overlap_param_gather),
        field("tp_comm_overlap", &parallel::TimeOptions::tp_comm_overlap),
        field("grad_reduce", &parallel::TimeOptions::grad_reduce, names(parallel::kGradReduceNames)))};

template <>
inline constexpr auto fields<parallel::PrunedFamily> =
    std::tuple{field("tp", &parallel::PrunedFamily::tp),
               field("pp", &parallel::PrunedFamily::pp),
               field("cp", &parallel::PrunedFamily::cp),
               field("rule", &parallel::PrunedFamily::rule),
               field("reason", &parallel::PrunedFamily::reason),
               field("min_memory_gib", &parallel::PrunedFamily::min_memory_bytes, scaled_or_null(kGiB))};

// "value": a number, a name, or null.
template <>
inline constexpr auto fields<parallel::SuggestedChange> =
    std::tuple{field("field", &parallel::SuggestedChange::field),
               custom(
                   "value",
                   [](const parallel::SuggestedChange& c) {
                     return c.number ? Json(*c.number) : c.text ? Json(*c.text) : Json(nullptr);
                   },
                   [](const Json& v, parallel::SuggestedChange& c) {
                     if (v.is_number_integer())
                       read_value(v, c.number.emplace());
                     else if (v.is_string())
                       read_value(v, c.text.emplace());
                     else if (!v.is_null())
                       fail_at(v, "must be an integer, a string or null");
                   }),
               field("note", &parallel::SuggestedChange::note)};

// "closest": the knobs of the closest miss (null, with "needed_memory_gib", when no layout is valid at all);
// "changes": what would make it fit.
template <>
inline constexpr auto fields<parallel::Infeasibility> = std::tuple{
    field("reason", &parallel::Infeasibility::reason),
    field("needed_memory_gib", &parallel::Infeasibility::needed_memory_bytes, scaled(kGiB)),
    field("usable_memory_gib", &parallel::Infeasibility::usable_memory_bytes, scaled(kGiB)),
    field("closest", &parallel::Infeasibility::closest), field("changes", &parallel::Infeasibility::changes)};

}  // namespace isoflop::doc
