// JSON and table rendering of ranked layouts, shared by `layout` and `plan`.
#pragma once

#include <string>

#include "parallel/search.hpp"
#include "report/output.hpp"

namespace isoflop::app {

report::Json layout_json(const parallel::RankedLayout& layout);
report::Json search_json(const parallel::SearchResult& result);

// The ranked layouts as a table, the best one's memory and step-time breakdown, and the pruned families.
std::string layouts_table(const parallel::SearchResult& result);

}  // namespace isoflop::app
