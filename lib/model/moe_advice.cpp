// ST-MoE's recommendations as checks; the CLI prints the returned lines as warnings.
#include "model/moe_advice.hpp"

#include <cmath>
#include <sstream>

namespace isoflop::model {
namespace {

constexpr const char* kCite = " (ST-MoE, Zoph et al. 2022)";

std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

int experts_per_device(int experts, int ep_devices) {
  if (ep_devices < 1) return experts;
  return (experts + ep_devices - 1) / ep_devices;
}

std::vector<std::string> moe_departures(const MoeConfig& moe, int ep_devices,
                                        const MoeRecommendations& r) {
  std::vector<std::string> out;
  if (!moe.enabled()) return out;
  if (moe.top_k != r.top_k)
    out.push_back("top-" + std::to_string(moe.top_k) + " routing departs from the recommended top-" +
                  std::to_string(r.top_k) + kCite);
  // Capacity factors compare as published decimals; 1e-9 absorbs parsing round-off only.
  if (std::fabs(moe.capacity_factor - r.capacity_factor) > 1e-9)
    out.push_back("training capacity factor " + num(moe.capacity_factor) + " departs from the recommended " +
                  num(r.capacity_factor) + kCite);
  if (std::fabs(moe.eval_capacity_factor - r.eval_capacity_factor) > 1e-9)
    out.push_back("evaluation capacity factor " + num(moe.eval_capacity_factor) + " departs from the recommended " +
                  num(r.eval_capacity_factor) + kCite);
  if (moe.experts > r.max_experts)
    out.push_back(std::to_string(moe.experts) + " experts exceed the recommended at most " +
                  std::to_string(r.max_experts) + kCite);
  if (ep_devices > 0 && experts_per_device(moe.experts, ep_devices) > r.max_experts_per_device)
    out.push_back(std::to_string(experts_per_device(moe.experts, ep_devices)) + " experts per device (" +
                  std::to_string(moe.experts) + " over " + std::to_string(ep_devices) + " expert-parallel devices" +
                  ") exceed the recommended at most " + std::to_string(r.max_experts_per_device) + kCite);
  return out;
}

}  // namespace isoflop::model
