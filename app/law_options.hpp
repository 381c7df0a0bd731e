// The law-choosing options shared by `optimal` and `loss`: --law, --law-params, --all-laws.
#pragma once

#include <string>
#include <vector>

#include "app/cli.hpp"
#include "catalog/laws.hpp"
#include "report/output.hpp"
#include "scaling/allocate.hpp"

namespace isoflop::app {

// Adds --law, --law-params and --all-laws to `options`.
void add_law_options(po::options_description& options);

// The laws the command uses: one (--law NAME, --law-params, or the default), or every catalog law
// (--all-laws). With `unique_tokens`, parametric laws take the data-constrained law's repetition decay.
std::vector<catalog::LawSpec> selected_laws(const po::variables_map& vm, const catalog::Catalog& cat,
                                            bool unique_tokens);

// An allocation as a JSON object (law, flops, params, tokens, tokens_per_param, loss, …).
report::Json allocation_json(const scaling::Allocation& a);

}  // namespace isoflop::app
