// Embodied carbon in LLMCarbon's model (Faiz et al. 2024): an accelerator's manufacturing CO2e is its die
// area × carbon per area plus its memory × carbon per GB, and a run is charged run time / lifetime of it.
#pragma once

#include "catalog/cost_constants.hpp"
#include "catalog/hardware.hpp"

namespace isoflop::cost {

// kg CO2e to make one accelerator: die_area_cm2 × kg_per_cm2 + memory GB × memory_kg_per_gb.
double embodied_kg_per_accelerator(const catalog::EmbodiedCarbon& die, const catalog::Accelerator& accelerator,
                                   double memory_kg_per_gb);

// The run's share: accelerators × kg each × time_s / lifetime_s (LLMCarbon embodied.py).
double amortised_embodied_kg(double accelerators, double kg_per_accelerator, double time_s, double lifetime_s);

}  // namespace isoflop::cost
