// JSON of an allocation (scaling::Allocation) and of the band across laws (scaling::AllocationBand): one
// shape wherever an allocation appears (`optimal`'s allocation and laws[i], `plan.allocation`, `plan.band[i]`).
//
// An allocation object always carries every key, null where the answer has no value:
//   {"law", "method", "flops", "params", "tokens", "tokens_per_param", "loss",
//    "unique_tokens", "epochs", "inference_tokens", "inference_flops", "total_flops",
//    "compute_optimal": null | {"params", "tokens", "total_flops"}}
// A band: {"laws": [allocation…], "skipped": [{"law", "reason"}…], "params_min", "params_max",
//          "tokens_min", "tokens_max", "flops_min", "flops_max"}.
#pragma once

#include "doc/document.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::scaling {

void to_json(doc::Json& j, const Allocation& a);
void from_json(const doc::Json& j, Allocation& a);

void to_json(doc::Json& j, const SkippedLaw& s);
void from_json(const doc::Json& j, SkippedLaw& s);

void to_json(doc::Json& j, const AllocationBand& b);
void from_json(const doc::Json& j, AllocationBand& b);

}  // namespace isoflop::scaling
