// The layout document and the layout sections it shares with the plan document.
#include "doc/layout_document.hpp"

#include "doc/architecture_json.hpp"
#include "doc/cluster_json.hpp"
#include "doc/layout_json.hpp"

namespace isoflop::doc {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Json search_json(const parallel::SearchOptions& options, const parallel::SearchResult& r) {
  Json j = Json::object();
  j["options"] = options;
  j["evaluated"] = r.evaluated;
  j["min_memory_gib"] = r.min_memory_bytes / kGiB;
  j["usable_memory_gib"] = r.usable_memory_bytes / kGiB;
  j["pruned"] = r.pruned;
  return j;
}

}  // namespace

void write_layout_sections(Json& d, const LayoutSections& s) {
  d["architecture"] = s.job.architecture;
  d["job"] = parallel::job_settings_json(s.job);
  d["cluster"] = s.cluster;
  d["layouts"] = s.result.layouts;
  d["search"] = search_json(s.options, s.result);
  d["infeasible"] = or_null(s.result.infeasible);
}

LayoutSections read_layout_sections(const Json& d) {
  LayoutSections s;
  read(d, "architecture", s.job.architecture);
  parallel::read_job_settings(d.at("job"), s.job);
  read(d, "cluster", s.cluster);
  read_array(d, "layouts", s.result.layouts);
  const Json& search = d.at("search");
  read(search, "options", s.options);
  read(search, "evaluated", s.result.evaluated);
  double gib = 0;
  read(search, "min_memory_gib", gib);
  s.result.min_memory_bytes = gib * kGiB;
  read(search, "usable_memory_gib", gib);
  s.result.usable_memory_bytes = gib * kGiB;
  read_array(search, "pruned", s.result.pruned);
  read(d, "infeasible", s.result.infeasible);
  return s;
}

LayoutSections layout_sections_from(const SourceDocument& document) {
  require_kind(document, {"layout", "plan"});
  try {
    return read_layout_sections(document.json);
  } catch (const Json::exception& e) {
    throw_decode_error(document.source, e);
  }
}

void to_json(Json& j, const LayoutDocument& d) {
  const auto& in = d.inputs;
  j = Json::object();
  j["schema"] = schema_id("layout");
  j["inputs"] = {{"arch", or_null(in.arch)},
                 {"from", or_null(in.from)},
                 {"gpu", or_null(in.cluster.gpu)},
                 {"node", or_null(in.cluster.node)},
                 {"gpus", or_null(in.cluster.gpus)},
                 {"nodes", or_null(in.cluster.nodes)},
                 {"gpus_per_node", or_null(in.cluster.gpus_per_node)},
                 {"global_batch", or_null(in.global_batch)},
                 {"seq", or_null(in.seq)}};
  write_layout_sections(j, d.sections);
}

void from_json(const Json& j, LayoutDocument& d) {
  d = LayoutDocument{};
  const Json& in = j.at("inputs");
  read(in, "arch", d.inputs.arch);
  read(in, "from", d.inputs.from);
  read(in, "gpu", d.inputs.cluster.gpu);
  read(in, "node", d.inputs.cluster.node);
  read(in, "gpus", d.inputs.cluster.gpus);
  read(in, "nodes", d.inputs.cluster.nodes);
  read(in, "gpus_per_node", d.inputs.cluster.gpus_per_node);
  read(in, "global_batch", d.inputs.global_batch);
  read(in, "seq", d.inputs.seq);
  d.sections = read_layout_sections(j);
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
