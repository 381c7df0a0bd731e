// Embodied carbon per accelerator and its amortised share.
#include "cost/embodied.hpp"

namespace isoflop::cost {
namespace {
constexpr double kBytesPerGb = 1e9;
}  // namespace

double embodied_kg_per_accelerator(const catalog::EmbodiedCarbon& die, const catalog::Accelerator& accelerator,
                                   double memory_kg_per_gb) {
  return die.die_area_cm2 * die.kg_per_cm2 + accelerator.memory_bytes / kBytesPerGb * memory_kg_per_gb;
}

double amortised_embodied_kg(double accelerators, double kg_per_accelerator, double time_s, double lifetime_s) {
  return accelerators * kg_per_accelerator * time_s / lifetime_s;
}

}  // namespace isoflop::cost
