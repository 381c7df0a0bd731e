// isoflop emit: the launch configuration a trainer reads (Megatron-LM, DeepSpeed, NeMo, SLURM/torchrun) from a
// plan document or from plan options, checked as the trainer checks it; --check does the same for a given file.
#include <algorithm>
#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/layout_options.hpp"
#include "app/plan_options.hpp"
#include "core/input_file.hpp"
#include "doc/layout_document.hpp"
#include "doc/plan_document.hpp"
#include "emit/emit.hpp"
#include "emit/launch_folder.hpp"
#include "emit/shell.hpp"

namespace isoflop::app {

int run_emit(const std::vector<std::string>& args) {
  const OptionList plan_list = plan_options();
  const auto parsed = parse_command(command_help("emit"), args, {declared_options("emit"), from_option("a plan document"), plan_list}, {"target"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  // The files are the trainers' own forms (a script, ds_config JSON, NeMo YAML); a check's answer is its lines.
  if (const auto f = get_string(vm, "format"); f && *f != "table")
    throw InputError(
        "-o/--format: emit writes each trainer's own file form, and --check a line per problem; "
        "give it without -o");
  const auto target_name = get_string(vm, "target");
  const std::string accepted = join(emit::kTargetNames.names(), "|");
  const auto target = target_name ? std::optional(emit::kTargetNames.parse(*target_name, "--target")) : std::nullopt;
  const catalog::Catalog catalog = load_catalog(parsed->common);
  emit::EmitOptions eo{get_string(vm, "target-version").value_or(""), get_string(vm, "job-name").value_or("isoflop"),
                       !has(vm, "no-substitute"), &catalog};
  // One rule for every target, though only slurm's #SBATCH lines carry the name: a name refused by `emit all` is
  // refused by `emit megatron` too, before anything is read.
  emit::require_plain_name(eo.job_name, "job_name");
  if (auto file = get_string(vm, "check")) {
    const std::string name = input_name(*file);
    const auto report = emit::check_file(name, target, read_input_text(*file), eo);
    if (report.inferred && !parsed->common.quiet)
      std::fprintf(stderr, "%s: checked as %s (read from its form; --target T checks it as another)\n", name.c_str(),
                   std::string(emit::kTargetNames.name(report.target)).c_str());
    for (const auto& p : report.problems) std::fprintf(stderr, "%s: %s\n", name.c_str(), p.c_str());
    if (!parsed->common.quiet)
      for (const auto& w : report.warnings) std::fprintf(stderr, "%s: warning: %s\n", name.c_str(), w.c_str());
    if (report.problems.empty() && !parsed->common.quiet) std::fprintf(stderr, "%s: accepted\n", name.c_str());
    return report.problems.empty() ? 0 : static_cast<int>(ExitStatus::kFailed);
  }
  if (!target) throw InputError("--target: missing; name the target first (isoflop emit TARGET) or with --target: " + accepted);
  const auto out = get_string(vm, "out");
  if (*target == emit::Target::kAll && !out) throw InputError("--out: 'all' writes four files; name a folder");
  // With --from the plan document gives the model, job and cluster; the layout options rank its layouts again
  // (as layout --from does), and the rest conflict.
  const auto option_word = [](const std::string& spec) { return spec.substr(0, spec.find_first_of(" :")); };
  std::vector<std::string> layout_names;
  for (const auto& spec : layout_options()) layout_names.push_back(option_word(spec));
  // The job's settings (the plan's, as it ran them) are not layout options: they conflict like the rest.
  const auto is_layout_option = [&](const std::string& name) {
    return name != "attention" && name != "precision" && name != "dropout" &&
           std::find(layout_names.begin(), layout_names.end(), name) != layout_names.end();
  };
  bool relaid = false;
  for (const auto& spec : plan_list) {  // "name VALUE: help" or "name: help"
    const std::string name = option_word(spec);
    if (!has(vm, "from") || !has(vm, name)) continue;
    if (!is_layout_option(name))
      throw InputError("--from and --" + name +
                       " conflict; the plan document says it (the layout options --tp, --pp, --trainer, … rank its "
                       "layouts again)");
    relaid = true;
  }
  const NamedOutputs outputs = named_outputs(parsed->common);
  if (out) emit::check_launch_folder(*out, *target, outputs);  // before the work: exit 2 now, not after planning
  const auto document = read_from(vm, {"plan"});
  plan::PlanResult plan = document ? doc::decode<plan::PlanResult>(*document) : plan_from_options(vm, catalog, nullptr);
  if (document) doc::hold_job_to_accelerator(*document, plan.job, plan.cluster.accelerator, &catalog);
  const std::string plan_json = document ? document->json.dump() : doc::Json(plan).dump();
  if (!plan.feasible()) throw InfeasibleError(infeasible_message(*plan.layouts.infeasible));
  emit::LaunchSpec spec =
      emit::make_launch_spec(plan, emit::launch_data(), emit::document_hash(plan_json), ISOFLOP_VERSION);
  // Every target's file is held to the plan's floor after its trainer's own re-ranking (DeepSpeed and NeMo run
  // no uneven stages, NeMo no ZeRO-3): a layout under it is not launched, as the plan would not be.
  eo.min_mfu = plan.min_mfu;
  if (relaid) {
    // The plan's model on its cluster, its layouts ranked again with the options given: the floor still holds.
    spec = emit::with_layout_request(spec, layout_request(vm), catalog, plan.min_mfu);
    for (const auto& name : layout_names)  // as given, in the table's order: the manifest records them
      if (is_layout_option(name) && has(vm, name)) {
        const auto value = get_string(vm, name);
        spec.layout_options += (spec.layout_options.empty() ? "--" : " --") + name + (value ? " " + *value : "");
      }
  } else if (plan.problem) {
    // A plan that `plan` refused (its MFU under the floor) is not launched either: exit 1 with its reason and the
    // changes that would pass, as plan said; re-plan with them (or with a lower --min-mfu, deliberately), or give
    // the layout options that lift it here.
    throw InfeasibleError("the plan is refused, so no launch file is written: " +
                          infeasible_message(plan.problem->reason, plan.problem->changes, parallel::kToReachFloor) +
                          "; re-plan with one of these (or a lower --min-mfu)");
  }
  if (const catalog::Node* node = catalog.find_node(plan.cluster.node_name)) {
    spec.host_cpu_cores = node->cpu_cores;
    spec.host_gpus = node->gpus_per_node;
  }
  const auto files = emit::emit_files(*target, spec, eo);
  for (const auto& f : files)
    for (const auto& note : {f.substitution, f.relayout})
      for (size_t begin = 0; begin < note.size();) {  // one line a note (a substitution may say two)
        const size_t end = std::min(note.find('\n', begin), note.size());
        std::fprintf(stderr, "emit: %s: %s\n", f.name.c_str(), note.substr(begin, end - begin).c_str());
        begin = end + 1;
      }
  if (!out) {
    std::fputs(files.front().content.c_str(), stdout);
    return 0;
  }
  emit::write_launch_folder(*out, files, spec, outputs);
  return 0;
}

}  // namespace isoflop::app
