// The law-choosing options shared by `optimal` and `loss`: --law, --law-params, --all-laws.
#pragma once

#include "app/cli.hpp"
#include "doc/allocation_json.hpp"
#include "scaling/query.hpp"

namespace isoflop::app {

// Adds --law, --law-params and --all-laws to `options`.
void add_law_options(po::options_description& options);

// The law choice they give (scaling::select_laws resolves it).
scaling::LawChoice law_choice(const po::variables_map& vm);

// Until plan writes its document: an allocation as its JSON object (doc/allocation_json.hpp).
inline report::Json allocation_json(const scaling::Allocation& a) { return report::Json(a); }

}  // namespace isoflop::app
