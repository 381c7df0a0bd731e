// Checking a sparse model's routing against ST-MoE's design recommendations (Zoph et al. 2022).
#pragma once

#include <string>
#include <vector>

#include "model/shape_family.hpp"
#include "model/architecture.hpp"

namespace isoflop::model {

// One line per departure from `recommended` (top-k, training and evaluation capacity factors, number of experts,
// experts per device), each citing ST-MoE; empty when the request follows them. `ep_devices` is the expert-parallel
// degree (devices the experts of one layer span); 0 = not given, which skips the per-device check.
std::vector<std::string> moe_departures(const MoeConfig& moe, int ep_devices,
                                        const MoeRecommendations& recommended);

// Experts each device holds when one layer's experts are spread over `ep_devices` devices (rounded up).
int experts_per_device(int experts, int ep_devices);

}  // namespace isoflop::model
