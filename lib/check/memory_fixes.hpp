// The memory rule's measure and its fixes: the per-GPU memory of a proposal's layout (or of the best layout the
// search finds for it), and the changes to the proposal that make it fit, each one applied to the proposal and
// planned again with the same code before it is offered.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/facts.hpp"

namespace isoflop::check {

// Memory of the most loaded GPU: of the layout the plan chose, or, when nothing fits, of the closest miss.
// One definition of what a GPU holds: the accelerator's whole memory (the planner keeps a share of it free,
// which `fits` reflects).
struct MemoryUse {
  double used_bytes = 0;
  // What the planner lets a layout use: the device less the headroom it keeps for the CUDA context, workspaces and
  // fragmentation (MemoryOptions::headroom_fraction), so that headroom 0 is exactly the planner's "fits".
  double usable_bytes = 0;
  double device_bytes = 0;
  bool fits = false;  // the plan found a layout within its usable memory
  double headroom_gib() const;
};
std::optional<MemoryUse> memory_use(const Facts& facts);

// Whether `use` meets the rule's `min` headroom (GiB; 0 when unset) on a layout the planner accepts.
bool memory_passes(const MemoryUse& use, std::optional<double> min_headroom_gib);

// A change to the proposal in its own field names and values: {"layout.zero", "3"}, or two fields that only
// make sense together ({"layout.pp", "8"}, {"layout.dp", "8"}).
struct ProposalChange {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string text() const;  // "layout.pp: 8 and layout.dp: 8"
};

// The changes that make the proposal pass the memory rule, fewest fields changed first; each one has been
// applied to a copy of the proposal and re-assessed. Empty for a plan document (nothing to change) or when no
// single change fits.
std::vector<ProposalChange> verified_memory_fixes(const Facts& facts, std::optional<double> min_headroom_gib);

// "layout.zero: 3, or layout.recompute: full".
std::string changes_text(const std::vector<ProposalChange>& changes);

}  // namespace isoflop::check
