// JSON of an allocation (scaling::Allocation) and of the band across laws (scaling::AllocationBand): one
// shape wherever an allocation appears (`optimal`'s allocation and laws[i], `plan.allocation`, `plan.band[i]`).
// An allocation always carries every key, null where the answer has no value; "compute_optimal" is null unless
// the allocation departs from the compute-optimal one (a data cap or inference demand).
#pragma once

#include "doc/fields.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::doc {

template <>
inline constexpr auto fields<scaling::Allocation> =
    std::tuple{field("law", &scaling::Allocation::law),
               field("method", &scaling::Allocation::method), field("flops", &scaling::Allocation::flops),
               field("params", &scaling::Allocation::params), field("tokens", &scaling::Allocation::tokens),
               field("tokens_per_param", &scaling::Allocation::tokens_per_param),
               field("loss", &scaling::Allocation::loss), field("unique_tokens", &scaling::Allocation::unique_tokens),
               field("epochs", &scaling::Allocation::epochs),
               field("inference_tokens", &scaling::Allocation::inference_tokens),
               field("inference_flops", &scaling::Allocation::inference_flops),
               field("total_flops", &scaling::Allocation::total_flops),
               group_if(
                   "compute_optimal",
                   [](const scaling::Allocation& a) {
                     return a.compute_optimal_params || a.compute_optimal_tokens || a.compute_optimal_total_flops;
                   },
                   field("params", &scaling::Allocation::compute_optimal_params),
                   field("tokens", &scaling::Allocation::compute_optimal_tokens),
                   field("total_flops", &scaling::Allocation::compute_optimal_total_flops))};

template <>
inline constexpr auto fields<scaling::SkippedLaw> =
    std::tuple{field("law", &scaling::SkippedLaw::law), field("reason", &scaling::SkippedLaw::reason)};

template <>
inline constexpr auto fields<scaling::AllocationBand> =
    std::tuple{field("laws", &scaling::AllocationBand::laws),
               field("skipped", &scaling::AllocationBand::skipped),
               field("params_min", &scaling::AllocationBand::params_min),
               field("params_max", &scaling::AllocationBand::params_max),
               field("tokens_min", &scaling::AllocationBand::tokens_min),
               field("tokens_max", &scaling::AllocationBand::tokens_max),
               field("flops_min", &scaling::AllocationBand::flops_min),
               field("flops_max", &scaling::AllocationBand::flops_max),
               field("parameters", &scaling::AllocationBand::parameters),
               field("notes", &scaling::AllocationBand::notes)};

}  // namespace isoflop::doc
