// Parsing measured runs files.
#include "catalog/measured_runs.hpp"

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace isoflop::catalog {
namespace {

MeasuredRun parse_run(FieldReader& r, const Catalog& catalog) {
  MeasuredRun run;
  run.name = r.string("name");
  run.gpu = r.string("gpu");
  if (!catalog.find_accelerator(run.gpu))
    r.fail("gpu", "'" + run.gpu + "' names no accelerator in the catalog" +
                      did_you_mean(run.gpu, names_of(catalog.accelerators)));
  run.node = r.string_or("node", "");
  if (!run.node.empty() && !catalog.find_node(run.node))
    r.fail("node", "'" + run.node + "' names no node in the catalog" + did_you_mean(run.node, names_of(catalog.nodes)));
  run.gpus = r.int_in("gpus", 1, 10'000'000);
  const YAML::Node arch = r.child("arch");
  if (arch.IsScalar()) {
    const ModelEntry* m = catalog.find_model(arch.Scalar());
    if (!m)
      r.fail("arch", "'" + arch.Scalar() + "' is no model in the catalog" +
                         did_you_mean(arch.Scalar(), names_of(catalog.models)) +
                         " (or give the architecture's fields)");
    run.architecture = m->architecture;
  } else {
    FieldReader a(arch, r.file(), "arch of run '" + run.name + "'");
    run.architecture = parse_architecture(a);
    a.finish();
  }
  run.seq = r.limited("seq", r.positive_integer_or("seq", run.architecture.seq));
  run.architecture.seq = run.seq;
  run.global_batch = r.limited("global_batch", r.positive_integer("global_batch"));
  FieldReader l(r.child("layout"), r.file(), "layout of run '" + run.name + "'");
  run.tp = l.int_in_or("tp", 1, 1024, 1);
  run.pp = l.int_in_or("pp", 1, 4096, 1);
  run.cp = l.int_in_or("cp", 1, 1024, 1);
  run.vpp = l.int_in_or("vpp", 1, 1024, 1);
  run.micro_batch = l.int_in_or("micro_batch", 1, 1 << 20, 1);
  run.zero_stage = l.int_in_or("zero", 0, 3, 0);
  const std::string recompute = l.string_or("recompute", "none");
  try {
    run.recompute = model::kRecomputeNames.parse(recompute, "recompute");
  } catch (const InputError&) {
    l.fail("recompute", "'" + recompute + "' is not one of " + join(model::kRecomputeNames.names(), "|"));
  }
  run.sequence_parallel = l.boolean_or("sequence_parallel", run.tp > 1);
  l.finish();
  // In 64 bits: the accepted degrees multiply past an int (1024 × 4096 × 1024).
  const long long model_parallel = static_cast<long long>(run.tp) * run.pp * run.cp;
  if (run.gpus % model_parallel != 0)
    r.fail("gpus", std::to_string(run.gpus) + " is not a multiple of tp x pp x cp = " + std::to_string(model_parallel));
  run.trainer = r.string_or("trainer", "");
  FieldReader m(r.child("measured"), r.file(), "measured of run '" + run.name + "'");
  int given = 0;
  for (const auto& [metric, key] : kMeasuredMetricNames.entries) {
    if (!m.has(std::string(key))) continue;
    ++given;
    run.metric = metric;
    run.value = m.positive(std::string(key));
  }
  m.finish();
  if (given != 1) r.fail("measured", "give exactly one of " + join(kMeasuredMetricNames.names(), ", "));
  if (run.metric == MeasuredMetric::kMfu && run.value > 1) m.fail("mfu", "must be a fraction in (0, 1]");
  run.held_out = r.boolean_or("held_out", false);
  run.source = r.string_or("source", "");
  run.file = r.where("name");
  return run;
}

}  // namespace

std::vector<MeasuredRun> parse_measured_runs(const std::string& text, const std::string& file, const Catalog& catalog) {
  YAML::Node root;
  try {
    root = load_one_document(text);
  } catch (const YAML::Exception& e) {
    throw CatalogError(file + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  reject_duplicate_keys(root, file);
  if (!root.IsMap() || !root["runs"] || !root["runs"].IsSequence())
    throw CatalogError(file + ": a runs file is a mapping with a list 'runs:' of measured runs");
  std::vector<MeasuredRun> runs;
  try {
    for (const auto& entry : root["runs"]) {
      FieldReader r(entry, file, "run");
      runs.push_back(parse_run(r, catalog));
      r.finish();
      // Runs are reported and held out by name: two of one name could not be told apart.
      for (size_t i = 0; i + 1 < runs.size(); ++i)
        if (runs[i].name == runs.back().name)
          r.fail("name", "'" + runs.back().name + "' is also the name of the run at " + runs[i].file +
                             "; accepted: a name of its own");
    }
  } catch (const YAML::Exception& e) {
    throw CatalogError(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (runs.empty()) throw CatalogError(file + ": 'runs:' lists no run");
  return runs;
}

}  // namespace isoflop::catalog
