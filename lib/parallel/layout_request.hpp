// What a user asks of the layout search and of the job, in words as typed — a pin per knob of the table of
// dimensions, the trainer by name, the time model's choices, the objective — checked and turned into
// SearchOptions and JobSettings. Bad values are FieldErrors naming the field; the caller spells it its way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "parallel/search.hpp"

namespace isoflop::parallel {

struct LayoutRequest {
  // Pins by the dimension's field ("tp" → "8", "recompute" → "full", "sequence_parallel" → "on").
  std::vector<std::pair<std::string, std::string>> pins;
  std::optional<std::string> trainer;               // megatron|deepspeed|nemo|fsdp; its rules load later
  std::optional<std::string> overlap_grad_reduce;   // on|off
  std::optional<std::string> overlap_param_gather;  // on|off
  std::optional<std::string> tp_comm_overlap;       // on|off
  std::optional<std::string> grad_reduce;           // fp32|bf16
  std::optional<int> max_tp;                        // largest TP tried
  std::optional<int> max_cp;                        // largest CP tried
  // time|memory; cost and energy rank as time, because for a fixed GPU count both grow with the step time.
  std::optional<std::string> objective;
  std::optional<int> top_k;                         // layouts kept
};

// The job's attention kernel (flash|eager), matmul precision (bf16|fp8) and dropout (on|off), as typed.
struct JobSettingsRequest {
  std::optional<std::string> attention;
  std::optional<std::string> precision;
  std::optional<std::string> dropout;
};

// Changes `options` by what `request` gives, over what they hold (defaults, or an earlier document's): pins,
// the trainer by name (its rules unloaded until resolve_trainer), overlaps, limits, objective, top_k.
// Throws FieldError naming the field ("tp", "trainer", "overlap_grad_reduce", "objective", …).
void apply_layout_request(const LayoutRequest& request, SearchOptions& options);
// The same over the defaults.
SearchOptions search_options(const LayoutRequest& request);

// Loads the named trainer's rules (default megatron) from the catalog into `options`.
void resolve_trainer(const catalog::Catalog& catalog, SearchOptions& options);

// The settings over the defaults (flash, bf16, no dropout). Throws FieldError("attention" | "precision" | "dropout").
JobSettings job_settings(const JobSettingsRequest& request);

// The infeasibility in words with each suggested change spelled by `spell` (a field → how the caller names it):
// "no layout fits …; to fit: <gpus> 4480 (about …), or an accelerator with at least 1357 GB of memory (<gpu>)".
std::string describe_spelled(const Infeasibility& infeasible, std::string (*spell)(std::string_view field),
                             const char* lead = kToFit);

}  // namespace isoflop::parallel
