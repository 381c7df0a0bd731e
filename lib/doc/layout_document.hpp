// The layout document ("isoflop/layout/v2"), and the sections it shares with the plan document:
//
//   {"schema": "isoflop/layout/v2",
//    "inputs": {"arch", "from", "gpu", "node", "gpus", "nodes", "gpus_per_node", "global_batch", "seq"},
//    "architecture": {…doc/architecture_json.hpp…},
//    "job": {"seq", "global_batch", "bytes_per_value", "optimizer"},
//    "cluster": {…doc/cluster_json.hpp…},
//    "layouts": [RankedLayout…]               best first; [] when nothing fits
//    "search": {"options": SearchOptions, "evaluated", "min_memory_gib", "usable_memory_gib", "pruned": [...]},
//    "infeasible": null | Infeasibility}      (doc/layout_json.hpp)
//
// A plan document carries the same keys from "architecture" to "infeasible" with the same shapes, written and
// read by write_layout_sections / read_layout_sections, so `layout --from plan.json` re-runs the plan's search.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "doc/document.hpp"
#include "parallel/cluster.hpp"
#include "parallel/search.hpp"

namespace isoflop::doc {

// What a layout search ran on and what it found: the document sections "architecture", "job", "cluster",
// "layouts", "search" and "infeasible".
struct LayoutSections {
  parallel::JobSpec job;           // "architecture" and "job"
  parallel::ClusterSpec cluster;   // "cluster"
  parallel::SearchOptions options; // "search"."options" (the pins and limits, so a reader can re-run the search)
  parallel::SearchResult result;   // "layouts", the rest of "search", "infeasible"
  bool operator==(const LayoutSections&) const = default;
};

// Appends the sections to `document` (an object) in the order above.
void write_layout_sections(Json& document, const LayoutSections& sections);
// Reads them from a document's top level.
LayoutSections read_layout_sections(const Json& document);
// The sections of a layout or a plan document; any other kind, or a missing or bad field, is an InputError
// naming the file and the JSON path.
LayoutSections layout_sections_from(const SourceDocument& document);

// The command line's inputs, echoed (null where not given).
struct LayoutInputs {
  std::optional<std::string> arch;  // catalog model or architecture file
  std::optional<std::string> from;  // the document re-ranked ("plan.json", "-")
  parallel::ClusterRequest cluster; // gpu, node, gpus, nodes, gpus_per_node
  std::optional<long long> global_batch;
  std::optional<long long> seq;
  bool operator==(const LayoutInputs&) const = default;
};

struct LayoutDocument {
  LayoutInputs inputs;
  LayoutSections sections;
  bool operator==(const LayoutDocument&) const = default;
};

void to_json(Json& j, const LayoutDocument& document);
void from_json(const Json& j, LayoutDocument& document);

// Runs the search and returns the document (infeasible included: layouts empty, `infeasible` set).
LayoutDocument make_layout_document(const LayoutInputs& inputs, const parallel::JobSpec& job,
                                    const parallel::ClusterSpec& cluster, const parallel::SearchOptions& options);

// Re-runs the search of a layout or plan document on its own job and cluster, with its search options changed
// by `change` (the pins given, a new top_k …). With no change the layouts are the document's.
LayoutDocument relayout(const SourceDocument& from, const std::function<void(parallel::SearchOptions&)>& change);

// The human page: a heading (model, cluster, batch), then render_layouts_table.
std::string render_layout_page(const LayoutDocument& document);
// The ranked layouts as a table, the best one's memory and step-time breakdowns, the pruned families and the
// count evaluated (shared with the plan's page). Step times of an accelerator whose constants are borrowed
// (`calibrated` false) are headed "uncalibrated".
std::string render_layouts_table(const parallel::SearchResult& result, bool calibrated = true);

}  // namespace isoflop::doc
