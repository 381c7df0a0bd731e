// isoflop layout: ranked TP/PP/DP/EP layouts of a model on a cluster, with memory and step time; or the
// layouts of an earlier layout or plan document re-ranked with pins (--from).
#include <spdlog/spdlog.h>

#include <cstdio>
#include <limits>
#include <vector>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/layout_options.hpp"
#include "core/error.hpp"
#include "doc/layout_document.hpp"
#include "plan/remedy.hpp"

namespace isoflop::app {
namespace {

// Options that describe the model, the job or the cluster: given by the document with --from.
// The model, job and cluster a document gives; of them only the cluster's size (--gpus, --nodes) and the global
// batch may change.
constexpr const char* kJobOptions[] = {"arch",          "seq",       "gpu",       "node",
                                       "gpus-per-node", "attention", "precision", "dropout"};

doc::LayoutDocument from_options(const Parsed& parsed, const catalog::Catalog& catalog) {
  const auto& vm = parsed.values;
  const doc::LayoutInputs in{.arch = get_string(vm, "arch"), .from = std::nullopt, .cluster = cluster_request(vm),
                             .global_batch = get_integer(vm, "global-batch"), .seq = get_integer(vm, "seq")};
  if (!in.arch) throw InputError("layout: missing --arch NAME|FILE (or --from FILE)");
  if (!in.global_batch) throw InputError("layout: missing --global-batch B (sequences per iteration)");
  const parallel::JobSettings settings = job_settings(vm);
  const parallel::SearchOptions options = parallel::search_options(layout_request(vm));
  std::string cluster_note;
  auto d = doc::layout_document(catalog, in, settings, options, &cluster_note);
  spdlog::debug("{}", cluster_note);
  return d;
}

// A best layout that `plan` would refuse, said so on stderr with plan's changes (lib/plan/remedy): fewer GPUs,
// a larger batch (here in sequences, layout's --global-batch), context parallelism.
void note_low_mfu(const doc::LayoutSections& s, double min_mfu) {
  const parallel::RankedLayout& best = s.result.layouts.front();
  plan::PlanProblem problem =
      plan::low_mfu_problem(s.job, s.cluster, s.options, best, min_mfu, std::numeric_limits<double>::infinity());
  for (auto& c : problem.changes)
    if (c.field == "global_batch_tokens" && c.number) {
      c.field = "global_batch";
      c.number = *c.number / s.job.seq;
    }
  std::fprintf(stderr, "isoflop: note: plan would refuse the best layout (the catalog's min_mfu): %s\n",
               infeasible_message(problem.reason, problem.changes, parallel::kToReachFloor).c_str());
}

}  // namespace

int run_layout(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("layout"), args, {declared_options("layout"), from_option("a layout or plan document"),
                                                                   cluster_options(), layout_options()});
  if (!parsed) return 0;
  const auto& vm = parsed->values;

  const catalog::Catalog catalog = load_catalog(parsed->common);
  doc::LayoutDocument d;
  if (const auto from = read_from(vm, {"layout", "plan"})) {
    for (const char* name : kJobOptions)
      if (has(vm, name))
        throw InputError(std::string("--") + name +
                         ": not with --from (the document gives the model, job and cluster; --gpus, --nodes and "
                         "--global-batch change its size and batch)");
    doc::ClusterResize resize;
    resize.gpus = get_integer(vm, "gpus");
    resize.nodes = get_integer(vm, "nodes");
    resize.global_batch = get_integer(vm, "global-batch");
    d = doc::relayout(*from, layout_request(vm), resize, catalog);
  } else {
    d = from_options(*parsed, catalog);
  }
  const bool from = has(vm, "from");
  const auto& infeasible = d.sections.result.infeasible;
  if (!infeasible || parsed->common.format != report::OutputFormat::kTable)
    write_document(parsed->common, doc::Json(d), [&] { return doc::render_layout_page(d); }, "layouts");
  if (!infeasible) {
    // A ranking is not a refusal, but a best layout that `plan` would refuse is said so.
    const double floor = catalog.run_cost_constants().min_mfu;
    const auto& layouts = d.sections.result.layouts;
    if (!parsed->common.quiet && !layouts.empty() && layouts.front().time.mfu < floor) note_low_mfu(d.sections, floor);
    return 0;
  }
  // The document fixes the accelerator (--gpu is refused with --from): another one is not offered.
  parallel::Infeasibility offered = *infeasible;
  if (from) std::erase_if(offered.changes, [](const parallel::SuggestedChange& c) { return c.field == "gpu"; });
  std::fprintf(stderr, "isoflop: infeasible: %s\n", infeasible_message(offered).c_str());
  return static_cast<int>(ExitStatus::kFailed);
}

}  // namespace isoflop::app
