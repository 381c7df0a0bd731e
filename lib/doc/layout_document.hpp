// The layout document ("isoflop/layout/v2"): the inputs echoed, then the sections it shares with the plan
// document — "architecture" (doc/architecture_json.hpp), "job", "cluster" (doc/hardware_json.hpp), "layouts"
// (best first; [] when nothing fits), "search" (the options, so a reader can re-run it, and what it found) and
// "infeasible" (null, or why nothing fits: doc/layout_json.hpp). A plan document carries the same sections
// with the same shapes, so `layout --from plan.json` re-runs the plan's search.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "doc/architecture_json.hpp"
#include "doc/hardware_json.hpp"
#include "doc/layout_json.hpp"
#include "catalog/catalog.hpp"
#include "parallel/cluster.hpp"
#include "parallel/layout_request.hpp"
#include "parallel/search.hpp"

namespace isoflop::doc {

// What a layout search ran on and what it found: the document sections "architecture", "job", "cluster",
// "layouts", "search" and "infeasible".
struct LayoutSections {
  parallel::JobSpec job;            // "architecture" and "job"
  parallel::ClusterSpec cluster;    // "cluster"
  parallel::SearchOptions options;  // "search"."options" (the pins and limits, so a reader can re-run the search)
  parallel::SearchResult result;    // "layouts", the rest of "search", "infeasible"
  bool operator==(const LayoutSections&) const = default;
};

// The sections of a layout or a plan document; any other kind, or a missing or bad field, is an InputError
// naming the file and the JSON path.
LayoutSections layout_sections_from(const SourceDocument& document);

// A document's job held to its accelerator (parallel::JobSpec::check_runs_on), a fault named by the document's key
// ("job.precision"). Documents written before the catalog said which parts lack bf16 tensor math, FlashAttention or
// Transformer Engine (2026-12-07) carry none of those keys; for an accelerator the catalog names they are the
// catalog's, so a V100 plan of then (bf16, flash) is refused rather than launched as written.
void hold_job_to_accelerator(const SourceDocument& document, const parallel::JobSpec& job,
                             catalog::Accelerator& accelerator, const catalog::Catalog* catalog);

// The command line's inputs, echoed (null where not given).
struct LayoutInputs {
  std::optional<std::string> arch;   // catalog model or architecture file
  std::optional<std::string> from;   // the document re-ranked ("plan.json", "-")
  parallel::ClusterRequest cluster;  // gpu, node, gpus, nodes, gpus_per_node
  std::optional<long long> global_batch;
  std::optional<long long> seq;
  bool operator==(const LayoutInputs&) const = default;
};

struct LayoutDocument {
  LayoutInputs inputs;
  LayoutSections sections;
  bool operator==(const LayoutDocument&) const = default;
};

template <>
inline constexpr auto fields<LayoutSections> = std::tuple{
    via(&LayoutSections::job, field("architecture", &parallel::JobSpec::architecture)),
    group("job", via(&LayoutSections::job, field("seq", &parallel::JobSpec::seq),
                     field("global_batch", &parallel::JobSpec::global_batch),
                     field("bytes_per_value", &parallel::JobSpec::bytes_per_value),
                     field("optimizer", &parallel::JobSpec::optimizer, names(parallel::kOptimizerNames)),
                     field("attention", &parallel::JobSpec::attention, names(parallel::kAttentionKernelNames)),
                     field("precision", &parallel::JobSpec::precision, names(parallel::kMatmulPrecisionNames)),
                     field("dropout", &parallel::JobSpec::dropout))),
    field("cluster", &LayoutSections::cluster),
    via(&LayoutSections::result, field("layouts", &parallel::SearchResult::layouts)),
    group("search", field("options", &LayoutSections::options),
          via(&LayoutSections::result, field("evaluated", &parallel::SearchResult::evaluated),
              field("min_memory_gib", &parallel::SearchResult::min_memory_bytes, scaled_or_null(kGiB)),
              field("usable_memory_gib", &parallel::SearchResult::usable_memory_bytes, scaled(kGiB)),
              field("pruned", &parallel::SearchResult::pruned))),
    via(&LayoutSections::result, field("infeasible", &parallel::SearchResult::infeasible))};

// Appends the sections to a document object (a plan's, after its own sections).
inline void write_layout_sections(Json& document, const LayoutSections& sections) {
  write_all(document, sections, fields<LayoutSections>);
}

// The command line's inputs: null where not given.
template <>
inline constexpr auto fields<LayoutInputs> =
    std::tuple{field("arch", &LayoutInputs::arch), field("from", &LayoutInputs::from),
               via(&LayoutInputs::cluster, field("gpu", &parallel::ClusterRequest::gpu),
                   field("node", &parallel::ClusterRequest::node), field("gpus", &parallel::ClusterRequest::gpus),
                   field("nodes", &parallel::ClusterRequest::nodes),
                   field("gpus_per_node", &parallel::ClusterRequest::gpus_per_node)),
               field("global_batch", &LayoutInputs::global_batch), field("seq", &LayoutInputs::seq)};

template <>
inline constexpr auto fields<LayoutDocument> =
    std::tuple{schema_key("layout"), field("inputs", &LayoutDocument::inputs), flat(&LayoutDocument::sections)};

// Runs the search and returns the document (infeasible included: layouts empty, `infeasible` set).
LayoutDocument make_layout_document(const LayoutInputs& inputs, const parallel::JobSpec& job,
                                    const parallel::ClusterSpec& cluster, const parallel::SearchOptions& options);

// The document of a layout asked for by name: resolves inputs.arch (a catalog model or an architecture file),
// inputs.cluster and the trainer of `options` (default megatron) against the catalog, then runs the search.
// The sequence length is inputs.seq, else the architecture's. `cluster_note` (if given) gets where the node,
// GPUs per node and bandwidths came from.
LayoutDocument layout_document(const catalog::Catalog& catalog, const LayoutInputs& inputs,
                               const parallel::JobSettings& settings, parallel::SearchOptions options,
                               std::string* cluster_note = nullptr);

// The size of the cluster a document's layouts are searched on again: its own, or another count of its GPUs
// (--gpus) or of its nodes (--nodes), the accelerator, node and bandwidths kept; and the batch they run.
struct ClusterResize {
  std::optional<long long> gpus;
  std::optional<long long> nodes;
  std::optional<long long> global_batch;  // and another global batch (sequences) for the job
};

// Re-runs the search of a layout or plan document on its own job and cluster (resized by `resize`, recorded in
// the inputs), with its search options changed by `change` (the pins given, a new top_k …). With no change the
// layouts are the document's.
LayoutDocument relayout(const SourceDocument& from, const std::function<void(parallel::SearchOptions&)>& change,
                        const ClusterResize& resize = {}, const catalog::Catalog* catalog = nullptr);
// The same with the document's search options changed by `request` and the trainer reloaded from the catalog.
LayoutDocument relayout(const SourceDocument& from, const parallel::LayoutRequest& request, const ClusterResize& resize,
                        const catalog::Catalog& catalog);

// How the job's blocks run, where that is not bf16 GEMMs with FlashAttention (a V100's fp16 and eager attention,
// FP8, dropout): "fp16 GEMMs, eager attention"; "" otherwise.
std::string job_kernels_text(const parallel::JobSpec& job);

// The human page: a heading (model, cluster, batch), then render_layouts_table.
std::string render_layout_page(const LayoutDocument& document);
// The ranked layouts as a table, the best one's memory and step-time breakdowns, the pruned families and the
// count evaluated (shared with the plan's page). Step times of an accelerator whose constants are borrowed
// (`calibrated` false) are headed "uncalibrated".
// `fp8`: the job's GEMMs run in fp8, whose peak is twice the 16-bit one that MFU is counted against (said so).
std::string render_layouts_table(const parallel::SearchResult& result, bool calibrated = true, bool fp8 = false);

}  // namespace isoflop::doc
