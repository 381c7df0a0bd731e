// The layout document and the layout sections it shares with the plan document.
#include "doc/layout_document.hpp"

#include "core/error.hpp"
#include "doc/architecture_input.hpp"
#include "parallel/cluster.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::doc {

LayoutSections layout_sections_from(const SourceDocument& document) {
  require_kind(document, {"layout", "plan"});
  return decode<LayoutSections>(document);
}

void hold_job_to_accelerator(const SourceDocument& document, const parallel::JobSpec& job,
                             catalog::Accelerator& accelerator, const catalog::Catalog* catalog) {
  const Json* written = nullptr;
  if (document.json.contains("cluster") && document.json.at("cluster").is_object() &&
      document.json.at("cluster").contains("accelerator") && document.json.at("cluster").at("accelerator").is_object())
    written = &document.json.at("cluster").at("accelerator");
  if (catalog && written && !written->contains("bf16"))
    if (const catalog::Accelerator* known = catalog->find_accelerator(accelerator.name)) {
      accelerator.bf16 = known->bf16;
      accelerator.flash_attention = known->flash_attention;
      accelerator.transformer_engine = known->transformer_engine;
    }
  check_document_section(document, "job", [&] { job.check_runs_on(accelerator); });
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
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(catalog, inputs.cluster);
  job.apply(settings, cluster.spec.accelerator);
  if (cluster_note) *cluster_note = cluster.note;
  parallel::resolve_trainer(catalog, options);
  parallel::apply_gradient_precision(job, options);
  return make_layout_document(inputs, job, cluster.spec, options);
}

namespace {

// The document's cluster and job at the size and batch given on the command line (range faults name the flag).
void apply_resize(const ClusterResize& resize, parallel::ClusterSpec& c, parallel::JobSpec& job) {
  if (resize.global_batch) {
    if (*resize.global_batch < 1)
      throw FieldError("global_batch", "must be positive, got " + std::to_string(*resize.global_batch));
    job.global_batch = *resize.global_batch;
  }
  if (resize.gpus || resize.nodes) c.gpus = parallel::cluster_gpus(resize.gpus, resize.nodes, c.gpus_per_node);
}

}  // namespace

LayoutDocument relayout(const SourceDocument& from, const std::function<void(parallel::SearchOptions&)>& change,
                        const ClusterResize& resize, const catalog::Catalog* catalog) {
  LayoutSections s = layout_sections_from(from);
  hold_job_to_accelerator(from, s.job, s.cluster.accelerator, catalog);
  const bool resized = resize.gpus || resize.nodes;
  // The document's job and cluster before any pin: a fault in them names their key, not a flag. A GPU count
  // given on the command line replaces the document's, whose faults no longer matter.
  check_document_section(from, "cluster", [&] { resized ? s.cluster.validate_node() : s.cluster.validate(); });
  check_document_section(from, "job", [&] { s.job.validate(); });
  apply_resize(resize, s.cluster, s.job);
  s.cluster.validate();  // at the size given: its fault names the flag
  parallel::SearchOptions options = s.options;
  if (change) change(options);
  if (resized) {
    const long long pinned = options.pins.pinned_gpus();
    if (s.cluster.gpus % pinned != 0)
      throw FieldError(resize.gpus ? "gpus" : "nodes",
                       std::to_string(s.cluster.gpus) + " GPUs are not divisible by the TP·PP·CP·DP = " +
                           std::to_string(pinned) + " pinned (by " + from.source +
                           " or the options given); pin other degrees (--tp, --pp, --cp, --dp) or give a count they "
                           "divide");
  }
  LayoutInputs inputs;
  inputs.from = from.source;
  inputs.cluster.gpus = resize.gpus;
  inputs.cluster.nodes = resize.nodes;
  inputs.global_batch = resize.global_batch;
  parallel::JobSpec job = s.job;
  if (change) parallel::apply_gradient_precision(job, options);  // another trainer or --grad-reduce: its buffer
  return make_layout_document(inputs, job, s.cluster, options);
}

LayoutDocument relayout(const SourceDocument& from, const parallel::LayoutRequest& request, const ClusterResize& resize,
                        const catalog::Catalog& catalog) {
  return relayout(
      from,
      [&](parallel::SearchOptions& o) {
        parallel::apply_layout_request(request, o);
        parallel::resolve_trainer(catalog, o);
        // The document's gradient precision, which the file written for this trainer cannot state (a plan made
        // with --grad-reduce bf16 for megatron, ranked for nemo): the trainer's own, as emit runs it. One asked
        // for here is the user's, and refused.
        if (!request.grad_reduce) parallel::drop_unstatable_grad_reduce(o);
      },
      resize, &catalog);
}

}  // namespace isoflop::doc
