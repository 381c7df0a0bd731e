// isoflop fit RUNS.csv: fit scaling laws to the user's runs (Approaches 1–3), bootstrap intervals, a
// figure, and the fitted law saved as a catalog entry.
#include <unistd.h>

#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "doc/fit_document.hpp"

namespace isoflop::app {
namespace {

void progress_bar(int done, int total) {
  std::fprintf(stderr, "\r%s%s", doc::fit_progress_bar(done, total).c_str(), done == total ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace

int run_fit(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("fit"), args, {declared_options("fit")}, {"runs"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  fit::FitRequest r;
  r.runs_file = get_string(vm, "runs").value_or("");
  if (r.runs_file.empty()) throw InputError("fit: missing RUNS.csv; see 'isoflop help fit'");
  r.curves_file = get_string(vm, "curves");
  for (auto [flag, field] : {std::pair{"params-column", &r.columns.params}, {"tokens-column", &r.columns.tokens},
                             {"flops-column", &r.columns.flops}, {"loss-column", &r.columns.loss},
                             {"run-column", &r.columns.run}})
    if (auto v = get_string(vm, flag)) *field = *v;
  if (auto list = get_string(vm, "approach")) r.approaches = fit::parse_approaches(*list, r.curves_file.has_value());
  r.form = get_enum(vm, "form", fit::kFormRequestNames).value_or(r.form);
  r.selection.min_flops = get_count(vm, "min-flops");
  r.selection.max_flops = get_count(vm, "max-flops");
  r.selection.drop_highest_loss = get_int(vm, "drop-highest-loss", units::Sign::kNonNegative).value_or(0);
  r.huber_delta = get_number(vm, "huber-delta").value_or(r.huber_delta);
  r.reduce = get_enum(vm, "reduce", fit::kReduceNames).value_or(r.reduce);
  r.grid = get_string(vm, "grid").value_or(r.grid);
  r.ftol = get_number(vm, "ftol").value_or(r.ftol);
  r.gtol = get_number(vm, "gtol", units::Sign::kNonNegative).value_or(r.gtol);
  r.threads = get_int(vm, "threads", units::Sign::kNonNegative, 4096).value_or(0);  // 0: every core, as train
  r.budget_tolerance = get_number(vm, "budget-tolerance", units::Sign::kNonNegative).value_or(r.budget_tolerance);
  r.a1_points = get_int(vm, "a1-points").value_or(r.a1_points);
  r.bootstrap = get_int(vm, "bootstrap").value_or(0);
  if (auto s = get_integer(vm, "seed", units::Sign::kNonNegative)) r.seed = static_cast<std::uint64_t>(*s);
  r.save_law = get_string(vm, "save-law");
  r.catalog_dir = parsed->common.catalog_dir;
  r.plot = get_plot_path(vm);
  const NamedOutputs outputs = named_outputs(parsed->common);
  doc::check_fit_outputs(r, outputs);

  const bool bar = !parsed->common.quiet && ::isatty(STDERR_FILENO);
  const doc::FitDocument document = doc::fit_document(r, bar ? &progress_bar : nullptr);
  doc::write_fit_outputs(r, document, outputs);
  write_document(
      parsed->common, doc::Json(document), [&] { return doc::render_fit(document); }, "approach2.budgets");
  return 0;
}

}  // namespace isoflop::app
