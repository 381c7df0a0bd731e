// data/validate/sweep.yaml and cpu.yaml read into SweepSettings.
#include "validate/presets.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "catalog/field_reader.hpp"
#include "catalog/hardware.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "emit/launch_data.hpp"

namespace isoflop::emit {
const std::vector<EmbeddedText>& embedded_validate_files();
}

namespace isoflop::validate {
namespace {

// A learning_rate block: its form and that form's coefficients (the schedule is shared and read apart).
LrRule read_lr_rule(catalog::FieldReader& r) {
  LrRule rule;
  rule.rule = r.string("rule");
  doc::LrFormula& f = rule.formula;
  f.form = doc::kLrFormNames.parse(r.string_or("form", "log_linear"), r.where("form"));
  if (f.form == doc::LrForm::kLogLinear) {
    f.intercept = r.number("intercept");
    f.log_slope = r.number("log_slope");
  } else {
    f.scale = r.positive("scale");
    f.params_exponent = r.number("params_exponent");
    f.tokens_exponent = r.number("tokens_exponent");
  }
  rule.source = r.string("source");
  r.finish();
  return rule;
}

Preset read_preset(catalog::FieldReader& r) {
  Preset p;
  p.name = r.string("name");
  p.note = r.string_or("note", "");
  p.total_flops = r.positive("total_flops");
  p.budgets = r.int_in("budgets", 1, 16);
  p.sizes = r.int_in("sizes", 1, 32);
  p.spacing = r.positive("spacing");
  p.size_span = r.positive("size_span");
  p.batch = r.int_in("batch", 1, 1 << 20);
  p.seq = r.int_in("seq", 1, 1 << 20);
  p.vocab = r.int_in("vocab", 2, 1 << 20);
  p.backend = train::kBackendKindNames.parse(r.string("backend"), r.where("backend"));
  p.threads = r.int_in_or("threads", 0, train::kMaxThreads, 0);
  p.eval_tokens = r.positive("eval_tokens");
  p.min_steps = r.int_in("min_steps", 1, 1 << 30);
  p.alphabet = r.int_in_or("alphabet", 0, 65535, 0);
  if (std::optional<YAML::Node> lr = r.optional_child("learning_rate")) {
    catalog::FieldReader rule(*lr, r.file(), "learning_rate of preset " + p.name);
    p.learning_rate = read_lr_rule(rule);
  }
  r.finish();
  return p;
}

// The compiled-in data/validate file `name`, parsed and checked for duplicate keys.
YAML::Node embedded_yaml(const std::string& name) {
  for (const auto& f : emit::embedded_validate_files())
    if (f.name == name) {
      YAML::Node root = catalog::load_one_document(f.text);
      catalog::reject_duplicate_keys(root, name);
      return root;
    }
  throw CatalogError(name + " is not compiled in");
}

CpuSpeedConstants read_cpu(const std::string& file) {
  catalog::FieldReader top(embedded_yaml(file), file, "cpu constants");
  catalog::FieldReader c(top.child("calibration"), file, "calibration");
  catalog::Accelerator cpu;
  catalog::read_gemm_calibration(c, cpu);  // the same keys and rules as an accelerator's calibration
  cpu.comm_efficiency = 1;                 // one device: no collectives to price
  CpuSpeedConstants out;
  out.constants = parallel::efficiency_constants(cpu);
  out.source = c.string("source");
  c.finish();
  top.finish();
  return out;
}

SweepSettings read_settings() {
  const std::string file = "data/validate/sweep.yaml";
  const YAML::Node root = embedded_yaml(file);
  catalog::FieldReader top(root, file, "sweep settings");
  SweepSettings s;
  catalog::FieldReader lr(top.child("learning_rate"), file, "learning_rate");
  s.lr = read_lr_rule(lr);
  catalog::FieldReader schedule(top.child("schedule"), file, "schedule");
  s.lr.warmup_fraction = schedule.fraction("warmup_fraction");
  s.lr.min_lr_fraction = schedule.fraction("min_lr_fraction");
  (void)schedule.string("source");
  schedule.finish();
  for (const YAML::Node& node : top.child("presets")) {
    catalog::FieldReader r(node, file, "preset");
    Preset p = read_preset(r);
    if (p.learning_rate) {  // a preset's own rule keeps the shared schedule
      p.learning_rate->warmup_fraction = s.lr.warmup_fraction;
      p.learning_rate->min_lr_fraction = s.lr.min_lr_fraction;
    }
    s.presets.push_back(std::move(p));
  }
  top.finish();
  s.cpu = read_cpu("data/validate/cpu.yaml");
  return s;
}

}  // namespace

const LrRule& SweepSettings::rule_for(const Preset& p) const { return p.learning_rate ? *p.learning_rate : lr; }

const Preset& SweepSettings::preset(const std::string& name) const {
  std::vector<std::string> names;
  for (const auto& p : presets) {
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  throw FieldError("preset", "unknown preset '" + name + "'; accepted: " + join(names));
}

const SweepSettings& sweep_settings() {
  static const SweepSettings settings = read_settings();
  return settings;
}

}  // namespace isoflop::validate
