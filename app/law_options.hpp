// The law-choosing options shared by `optimal` and `loss`: --law, --law-params, --all-laws, read into the
// library's scaling::LawChoice (scaling::select_laws resolves it).
#pragma once

#include "app/cli.hpp"
#include "scaling/query.hpp"

namespace isoflop::app {

// --law, --law-params and --all-laws.
const OptionList& law_options();

// The law choice they give (scaling::select_laws resolves it).
scaling::LawChoice law_choice(const po::variables_map& vm);

}  // namespace isoflop::app
