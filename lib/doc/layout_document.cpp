// The layout document and the layout sections it shares with the plan document.
#include "doc/layout_document.hpp"

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

LayoutDocument relayout(const SourceDocument& from, const std::function<void(parallel::SearchOptions&)>& change) {
  const LayoutSections s = layout_sections_from(from);
  parallel::SearchOptions options = s.options;
  if (change) change(options);
  LayoutInputs inputs;
  inputs.from = from.source;
  return make_layout_document(inputs, s.job, s.cluster, options);
}

}  // namespace isoflop::doc
