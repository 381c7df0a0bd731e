// The layout document and the layout sections it shares with the plan document.
#include "doc/layout_document.hpp"

#include "core/error.hpp"
#include "doc/architecture_input.hpp"

namespace isoflop::doc {

LayoutSections layout_sections_from(const SourceDocument& document) {
  require_kind(document, {"layout", "plan"});
  return decode<LayoutSections>(document);
}

LayoutDocument make_layout_document(const LayoutInputs& inputs, const parallel::JobSpec& job,
                                    const parallel::ClusterSpec& cluster, const parallel::SearchOptions& options) {
  LayoutDocument d;
  d.inputs = inputs;
  d.sections.job = job;
  d.sections.cluster = cluster;
  d.sections.options = options;
  d.sections.result = parallel::search_layouts(job, cluster, options);
  return d;
}

LayoutDocument layout_document(const catalog::Catalog& catalog, const LayoutInputs& inputs,
                               const parallel::JobSettings& settings, parallel::SearchOptions options,
                               std::string* cluster_note) {
  if (!inputs.arch) throw FieldError("arch", "missing; name a catalog model or an architecture file");
  if (!inputs.global_batch) throw FieldError("global_batch", "missing; give the sequences per iteration");
  parallel::JobSpec job;
  job.architecture = resolve_architecture(catalog, *inputs.arch);
  job.seq = inputs.seq.value_or(job.architecture.seq);
  job.global_batch = *inputs.global_batch;
  job.apply(settings);
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(catalog, inputs.cluster);
  if (cluster_note) *cluster_note = cluster.note;
  parallel::resolve_trainer(catalog, options);
  parallel::apply_gradient_precision(job, options);
  return make_layout_document(inputs, job, cluster.spec, options);
}

LayoutDocument relayout(const SourceDocument& from, const std::function<void(parallel::SearchOptions&)>& change,
                        const std::function<void(parallel::ClusterSpec&, parallel::JobSpec&)>& resize) {
  LayoutSections s = layout_sections_from(from);
  // The document's job and cluster before any pin: a fault in them names their key, not a flag.
  check_document_section(from, "cluster", [&] { s.cluster.validate(); });
  check_document_section(from, "job", [&] { s.job.validate(); });
  if (resize) {
    resize(s.cluster, s.job);
    s.cluster.validate();  // a count given on the command line: its fault names the flag
  }
  parallel::SearchOptions options = s.options;
  if (change) change(options);
  LayoutInputs inputs;
  inputs.from = from.source;
  parallel::JobSpec job = s.job;
  if (change) parallel::apply_gradient_precision(job, options);  // another trainer or --grad-reduce: its buffer
  return make_layout_document(inputs, job, s.cluster, options);
}

LayoutDocument relayout(const SourceDocument& from, const parallel::LayoutRequest& request, const ClusterResize& resize,
                        const catalog::Catalog& catalog) {
  if (resize.gpus && resize.nodes) throw FieldError("nodes", "conflicts with a GPU count; give only one");
  const auto resized = [&](parallel::ClusterSpec& c, parallel::JobSpec& job) {
    constexpr long long kMaxGpus = 100'000'000;
    if (resize.global_batch) {
      if (*resize.global_batch < 1) throw FieldError("global_batch", "must be positive");
      job.global_batch = *resize.global_batch;
    }
    if (resize.gpus) {
      if (*resize.gpus < 1 || *resize.gpus > kMaxGpus) throw FieldError("gpus", "must be in [1, 1e8]");
      c.gpus = static_cast<int>(*resize.gpus);
    } else if (resize.nodes) {
      if (*resize.nodes < 1 || *resize.nodes > kMaxGpus / c.gpus_per_node)
        throw FieldError("nodes", "must be positive and at most 1e8 GPUs in all");
      c.gpus = static_cast<int>(*resize.nodes * c.gpus_per_node);
    }
  };
  return relayout(
      from,
      [&](parallel::SearchOptions& o) {
        parallel::apply_layout_request(request, o);
        parallel::resolve_trainer(catalog, o);
      },
      resize.gpus || resize.nodes || resize.global_batch
          ? std::function<void(parallel::ClusterSpec&, parallel::JobSpec&)>(resized)
          : nullptr);
}

}  // namespace isoflop::doc
