// isoflop emit: the launch configuration a trainer reads (Megatron-LM, DeepSpeed, NeMo, SLURM/torchrun) from a
// plan document or from plan options, checked as the trainer checks it; --check does the same for a given file.
#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/layout_options.hpp"
#include "app/plan_options.hpp"
#include "core/input_file.hpp"
#include "doc/plan_document.hpp"
#include "emit/emit.hpp"

namespace isoflop::app {
namespace {

}  // namespace

int run_emit(const std::vector<std::string>& args) {
  const OptionList plan_list = plan_options();
  const auto parsed = parse_command(command_help("emit"), args, {declared_options("emit"), from_option("a plan document"), plan_list}, {"target"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const emit::Target target = emit::kTargetNames.parse(get_string(vm, "target").value_or(""), "emit: TARGET");
  const emit::LaunchData& data = emit::launch_data();
  emit::EmitOptions eo;
  eo.megatron_version = get_string(vm, "target-version").value_or("");
  if (auto name = get_string(vm, "job-name")) eo.job_name = *name;
  eo.substitute = !has(vm, "no-substitute");
  if (auto file = get_string(vm, "check")) {
    const auto problems = emit::check_config(target, read_input_text(*file), data, eo.megatron_version);
    for (const auto& p : problems) std::fprintf(stderr, "%s: %s\n", input_name(*file).c_str(), p.c_str());
    if (problems.empty() && !parsed->common.quiet) std::fprintf(stderr, "%s: accepted\n", input_name(*file).c_str());
    return problems.empty() ? 0 : static_cast<int>(ExitStatus::kFailed);
  }
  const auto out = get_string(vm, "out");
  if (target == emit::Target::kAll && !out) throw InputError("--out: 'all' writes four files; name a folder");
  for (const auto& spec : plan_list)  // "name VALUE: help" or "name: help"
    if (const std::string name = spec.substr(0, spec.find_first_of(" :")); has(vm, "from") && has(vm, name))
      throw InputError("--from and --" + name + " conflict; the plan document says it");
  const std::string dir = !out || out->empty() || out->back() == '/' ? out.value_or("") : *out + "/";
  for (const auto& name : emit::file_names(target))  // before the work: exit 2 now rather than after planning
    if (out) check_output_file(parsed->common, dir + name, "--out");
  const auto document = read_from(vm, {"plan"});
  const plan::PlanResult plan = document ? doc::decode<plan::PlanResult>(*document)
                                         : plan_from_options(vm, load_catalog(parsed->common), nullptr);
  const std::string plan_json = document ? document->json.dump() : doc::Json(plan).dump();
  if (!plan.feasible()) throw InfeasibleError(infeasible_message(*plan.layouts.infeasible));
  const auto catalog = load_catalog(parsed->common);
  emit::require_runnable(plan, catalog.trainer(plan.search.trainer.name.empty() ? "megatron" : plan.search.trainer.name));
  const emit::LaunchSpec spec = emit::make_launch_spec(plan, data, emit::document_hash(plan_json), ISOFLOP_VERSION);
  const auto files = emit::emit_files(target, spec, eo);
  for (const auto& f : files)
    if (!f.substitution.empty()) std::fprintf(stderr, "emit: %s: %s\n", f.name.c_str(), f.substitution.c_str());
  if (!out) {
    std::fputs(files.front().content.c_str(), stdout);
    return 0;
  }
  for (const auto& f : files) write_output_file(parsed->common, dir + f.name, f.content, "--out");
  write_output_file(parsed->common, dir + emit::kManifestName, emit::manifest(files, spec), "--out");
  return 0;
}

}  // namespace isoflop::app
