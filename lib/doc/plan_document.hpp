// The plan document ("isoflop/plan/v2"): plan::PlanResult as JSON, its human page and its IsoFLOP figure.
// "inputs" (the budget as given, the family, the batch), "budget" (in FLOPs after the utilisation iteration),
// "allocation" and "band" (doc/allocation_json.hpp), "shape", then the layout document's sections
// (doc/layout_document.hpp) and "cost" (doc/cost_json.hpp; null when nothing fits).
#pragma once

#include <string>
#include <vector>

#include "catalog/laws.hpp"
#include "doc/document.hpp"
#include "plan/plan.hpp"

namespace isoflop::plan {

void to_json(doc::Json& j, const PlanResult& plan);
void from_json(const doc::Json& j, PlanResult& plan);

}  // namespace isoflop::plan

namespace isoflop::doc {

// The readable report: budget, allocation, the band, architecture, layouts, cost, energy methods, the 4Ms.
// `cluster_note` says where the node and bandwidths came from.
std::string render_plan_page(const plan::PlanResult& plan, const std::string& cluster_note);

// SVG: loss along the budget's IsoFLOP curve (N from a tenth to ten times the optimum) for each law with a
// loss on the common scale, the other laws' optima, and the plan's optimum.
std::string render_isoflop_figure(const plan::PlanResult& plan, const std::vector<catalog::LawSpec>& laws);

}  // namespace isoflop::doc
