// Proposals and policies from YAML or JSON, with the line of every field.
#include "doc/proposal_input.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "check/rules.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/suggest.hpp"
#include "doc/architecture_input.hpp"
#include "doc/architecture_json.hpp"
#include "doc/layout_document.hpp"
#include "doc/plan_document.hpp"
#include "doc/yaml_json.hpp"
#include "scaling/loss_law.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"
#include "units/quantity.hpp"
#include "units/si.hpp"

namespace isoflop::doc {
namespace {

// The largest parallel degree or micro-batch a proposal may pin: the bound the command line's --tp, --pp … have.
constexpr long long kMaxLayoutPin = 1'000'000;

// Reads one input's fields, naming file:line in every error.
class Fields {
 public:
  Fields(std::string source, const check::LineMarks& marks) : source_(std::move(source)), marks_(marks) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(source_ + ":" + std::to_string(check::line_of(marks_, path)) + ": " + path + ": " + what);
  }
  void only(const Json& object, const std::string& path, const std::vector<std::string>& accepted) const {
    if (!object.is_object()) fail(path, "must be a mapping of " + join(accepted));
    for (const auto& [key, value] : object.items()) {
      bool known = false;
      for (const auto& a : accepted) known = known || a == key;
      if (!known)
        fail(join_path(path, key), "unknown field" + did_you_mean(key, accepted) + "; accepted: " + join(accepted));
    }
  }
  static std::string join_path(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  std::string text(const Json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "must be a string");
    return v.get<std::string>();
  }
  // A count as a number or with a suffix ("1.4T", "70B").
  double count(const Json& v, const std::string& path, units::Sign sign = units::Sign::kPositive) const {
    try {
      if (v.is_number()) return units::parse_count(v.dump(), path, sign);
      if (v.is_string()) return units::parse_count(v.get<std::string>(), path, sign);
    } catch (const InputError& e) {
      fail(path, std::string(e.what()).substr(path.size() + 2));
    }
    fail(path, "must be a number (70B, 1.4T, 5.76e23 accepted)");
  }
  long long integer(const Json& v, const std::string& path, long long min_value,
                    long long max_value = std::numeric_limits<long long>::max()) const {
    if (!v.is_number_integer()) fail(path, "must be an integer");
    if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(max_value))
      fail(path, "must be at most " + std::to_string(max_value));
    const long long n = v.get<long long>();
    if (n < min_value) fail(path, "must be at least " + std::to_string(min_value));
    if (n > max_value) fail(path, "must be at most " + std::to_string(max_value));
    return n;
  }
  bool boolean(const Json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "must be true or false");
    return v.get<bool>();
  }

 private:
  std::string source_;
  const check::LineMarks& marks_;
};

void read_layout(const Fields& in, const Json& j, check::Proposal& p) {
  in.only(j, "layout", {"tp", "pp", "dp", "ep", "cp", "vpp", "micro_batch", "zero", "recompute",
                        "sequence_parallel", "trainer"});
  auto& pins = p.layout;
  auto i = [&](const char* key, std::optional<int>& out, long long min_value, long long max_value = kMaxLayoutPin) {
    if (j.contains(key))
      out = static_cast<int>(in.integer(j.at(key), std::string("layout.") + key, min_value, max_value));
  };
  i("tp", pins.tp, 1);
  i("pp", pins.pp, 1);
  i("dp", pins.dp, 1);
  i("ep", pins.ep, 1);
  i("cp", pins.cp, 1);
  i("vpp", pins.vpp, 1);
  i("micro_batch", pins.micro_batch, 1);
  i("zero", pins.zero_stage, 0, 3);  // ZeRO stages 0 to 3 (Rajbhandari et al. 2020)
  if (j.contains("recompute")) {
    try {
      pins.recompute = model::kRecomputeNames.parse(in.text(j.at("recompute"), "layout.recompute"), "layout.recompute");
    } catch (const InputError& e) {
      in.fail("layout.recompute", std::string(e.what()).substr(18));
    }
  }
  if (j.contains("sequence_parallel")) pins.sequence_parallel = in.boolean(j.at("sequence_parallel"), "layout.sequence_parallel");
  if (j.contains("trainer")) p.trainer = in.text(j.at("trainer"), "layout.trainer");
}

void read_cluster(const Fields& in, const Json& j, check::Proposal& p) {
  in.only(j, "cluster", {"gpu", "node", "gpus", "nodes", "gpus_per_node"});
  if (j.contains("gpu")) p.cluster.gpu = in.text(j.at("gpu"), "cluster.gpu");
  if (j.contains("node")) p.cluster.node = in.text(j.at("node"), "cluster.node");
  if (j.contains("gpus")) p.cluster.gpus = in.integer(j.at("gpus"), "cluster.gpus", 1);
  if (j.contains("nodes")) p.cluster.nodes = in.integer(j.at("nodes"), "cluster.nodes", 1);
  if (j.contains("gpus_per_node")) p.cluster.gpus_per_node = in.integer(j.at("gpus_per_node"), "cluster.gpus_per_node", 1);
}

void read_arch(const catalog::Catalog& catalog, const Fields& in, const Json& j, check::Proposal& p) {
  if (j.is_object()) {  // a full shape, as `arch -o json` writes its architecture
    try {
      p.architecture = j.get<model::Architecture>();
    } catch (const Json::exception& e) {
      in.fail("arch", describe_json_error(e));
    }
    return;
  }
  try {
    p.architecture = resolve_architecture(catalog, in.text(j, "arch"));
  } catch (const FieldError& e) {
    in.fail("arch", e.message());
  } catch (const CatalogError& e) {
    // The architecture file the proposal names (a key twice, a syntax error) is read as a catalog entry is: its
    // fault is this proposal's, which `check` reports in error beside the others.
    throw InputError(e.what());
  }
}

// Whether the text holds nothing but blank lines and comments.
bool blank(std::string_view text) {
  bool comment = false;
  for (const char c : text) {
    if (c == '\n') comment = false;
    else if (c == '#') comment = true;
    else if (!comment && c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// The input's data with its fields' lines. An empty file says so; a duplicate key in JSON names both lines,
// as in YAML (the JSON reader knows only the object's path, yaml-cpp the marks of both keys).
Json read_data(const std::string& source, std::string_view text, check::LineMarks& marks, const std::string& what) {
  if (blank(text)) throw InputError(source + ": the file is empty; " + what);
  try {
    return parse_data(source, text, &marks);
  } catch (const CatalogError& e) {
    // The YAML reader is the catalog's, and reports as one; this is the input's own fault (a key twice), not the
    // catalog's: `check` reports the proposal in error and goes on with the others.
    throw InputError(e.what());
  } catch (const InputError& e) {
    if (!looks_like_json(text) || std::string_view(e.what()).find("duplicate key") == std::string_view::npos) throw;
    try {
      load_yaml(source, text);
    } catch (const CatalogError& y) {
      if (std::string_view(y.what()).find("duplicate key") != std::string_view::npos) throw InputError(y.what());
    }
    throw;
  }
}

}  // namespace

check::Proposal parse_proposal(const catalog::Catalog& catalog, const std::string& source, std::string_view text) {
  check::Proposal p;
  p.source = source;
  p.name = std::filesystem::path(source).filename().string();
  const Json j = read_data(source, text, p.marks, "a proposal is a mapping naming arch or params, tokens and cluster");
  if (!j.is_object()) throw InputError(source + ": a proposal must be a mapping");
  if (j.contains("schema")) {  // a plan document, as `plan -o json` writes it
    SourceDocument d = parse_document(source, text);
    require_kind(d, {"plan"});
    p.plan = decode<plan::PlanResult>(d);
    hold_job_to_accelerator(d, p.plan->job, p.plan->cluster.accelerator, &catalog);
    p.tokens = p.plan->tokens;
    // The catalog grid its intensity is of, where the plan named one (documents from 2026-12-07 on record it).
    if (p.plan->cost) p.region = p.plan->cost->inputs.grid;
    // The budget it was asked for is what it states: a time or a compute, held to what it predicts.
    if (p.plan->budget.time_s) p.days = *p.plan->budget.time_s / units::kSecondsPerDay;
    if (p.plan->budget.flops) p.flops = p.plan->budget.flops;
    return p;
  }
  const Fields in(source, p.marks);
  in.only(j, "", {"name", "owner", "links", "notes", "arch", "params", "family", "tokens", "unique_tokens", "seq",
                  "global_batch", "cluster", "layout", "days", "flops", "region", "pue", "price_per_gpu_hour"});
  if (j.contains("name")) {
    p.name = in.text(j.at("name"), "name");
    // A report names each proposal's suite and test cases by it (JUnit requires a name).
    if (p.name.find_first_not_of(" \t\r\n") == std::string::npos)
      in.fail("name", "must not be empty; give the proposal a name, or leave the field out for the file's name");
  }
  if (j.contains("owner")) p.owner = in.text(j.at("owner"), "owner");
  if (j.contains("arch") == j.contains("params"))
    in.fail(j.contains("arch") ? "params" : "arch",
            j.contains("arch")
                ? "give the model as arch (catalog name, file or shape) or params, one of them"
                : "missing: give the model as arch (catalog name, file or shape) or params, one of them");
  if (j.contains("arch")) read_arch(catalog, in, j.at("arch"), p);
  if (j.contains("params")) p.params = in.count(j.at("params"), "params");
  if (j.contains("family")) p.family = in.text(j.at("family"), "family");
  if (!j.contains("tokens")) in.fail("tokens", "missing (training tokens, e.g. 1.4T)");
  p.tokens = in.count(j.at("tokens"), "tokens");
  if (p.tokens > units::kMaxTrainingTokens)
    in.fail("tokens", units::format_scientific(p.tokens) + " is more than the " +
                          units::format_scientific(units::kMaxTrainingTokens) + " a training run may have");
  if (j.contains("unique_tokens")) p.unique_tokens = in.count(j.at("unique_tokens"), "unique_tokens");
  // seq and global_batch within the sanity limits every command applies (their product stays within 64 bits).
  if (j.contains("seq")) p.seq = in.integer(j.at("seq"), "seq", 1, *units::integer_limit("seq"));
  if (j.contains("global_batch"))
    p.global_batch = in.integer(j.at("global_batch"), "global_batch", 1, *units::integer_limit("global_batch"));
  if (!j.contains("cluster")) in.fail("cluster", "missing (gpu and gpus or nodes)");
  read_cluster(in, j.at("cluster"), p);
  if (j.contains("layout")) read_layout(in, j.at("layout"), p);
  if (!p.trainer.empty()) {  // a trainer the catalog lacks, at its own line (the rules would name line 1)
    try {
      catalog.trainer(p.trainer);
    } catch (const FieldError& e) {
      in.fail("layout.trainer", e.message());
    }
  }
  if (j.contains("days")) p.days = in.count(j.at("days"), "days");
  if (j.contains("flops")) p.flops = in.count(j.at("flops"), "flops");
  if (j.contains("region")) p.region = in.text(j.at("region"), "region");
  if (j.contains("pue")) p.pue = j.at("pue").is_number() ? j.at("pue").dump() : in.text(j.at("pue"), "pue");
  if (j.contains("price_per_gpu_hour")) p.price_per_gpu_hour_usd = in.count(j.at("price_per_gpu_hour"), "price_per_gpu_hour");
  return p;
}

check::Proposal read_proposal(const catalog::Catalog& catalog, const std::string& path) {
  return parse_proposal(catalog, input_name(path), read_input_text(path));
}

std::vector<check::ReadProposal> read_proposals(const catalog::Catalog& catalog,
                                                const std::vector<std::string>& patterns) {
  std::vector<check::ReadProposal> proposals;
  for (const auto& path : expand_input_patterns(patterns)) {
    check::ReadProposal& read = proposals.emplace_back();
    read.source = input_name(path);  // "<stdin>" for -, as its messages name it
    try {
      read.proposal = read_proposal(catalog, path);
    } catch (const CatalogError&) {  // the catalog: no proposal can be read
      throw;
    } catch (const InputError& e) {
      read.error = e.what();
    }
  }
  return proposals;
}

check::Policy parse_policy(const catalog::Catalog& catalog, const std::string& source, std::string_view text) {
  check::Policy policy;
  policy.source = source;
  check::LineMarks marks;
  const Json j = read_data(source, text, marks, "a policy is a mapping with rules");
  const Fields in(source, marks);
  in.only(j, "", {"name", "description", "rules"});
  if (!j.contains("rules")) in.fail("rules", "missing (a mapping of rule names to their settings)");
  const Json& rules = j.at("rules");
  if (!rules.is_object()) in.fail("rules", "must be a mapping of rule names to their settings");
  // A gate with no rule passes every proposal: a policy emptied by mistake must not let everything through.
  if (rules.empty())
    in.fail("rules",
            "empty: a policy with no rules passes every proposal; name at least one (isoflop check "
            "--list-rules)");
  for (const auto& [name, value] : rules.items()) {
    const std::string path = "rules." + name;
    const check::RuleInfo* info = check::find_rule(name);
    if (!info)
      in.fail(path, "unknown rule" + did_you_mean(name, check::rule_names()) + "; accepted: " + join(check::rule_names()));
    check::RuleSetting s;
    s.rule = name;
    s.line = check::line_of(marks, path);
    // `within_law_band: true`: the rule with no settings.
    const bool bare = value.is_boolean() && value.get<bool>();
    std::vector<std::string> accepted = {"severity"};
    for (const auto& spec : info->settings) accepted.emplace_back(spec.key);
    if (!bare) in.only(value, path, accepted);
    const Json settings = bare ? Json::object() : value;
    for (const auto& [key, v] : settings.items()) {
      const std::string at = path + "." + key;
      if (key == "severity") {
        const std::string sev = in.text(v, at);
        if (sev == "error") s.severity = check::Severity::kError;
        else if (sev == "warn") s.severity = check::Severity::kWarn;
        else in.fail(at, "'" + sev + "' is not one of error|warn");
        continue;
      }
      for (const auto& spec : info->settings) {
        if (key != spec.key) continue;
        if (spec.kind == check::SettingKind::kNumber) {
          const double x = in.count(v, at, spec.non_negative ? units::Sign::kNonNegative : units::Sign::kAny);
          if (x < spec.lowest() || x > spec.most)
            in.fail(at, units::format_significant(x, 17) + " is out of range; accepted: " +
                            (spec.most == std::numeric_limits<double>::infinity()
                                 ? "at least " + units::format_significant(spec.lowest(), 6)
                                 : units::format_significant(spec.lowest(), 6) + " to " +
                                       units::format_significant(spec.most, 6)) +
                            (info->unit[0] ? std::string(" (") + info->unit + ")" : std::string()));
          s.numbers[key] = x;
        } else if (spec.kind == check::SettingKind::kText) {
          s.texts[key] = in.text(v, at);
          // A law named for a loss comparison: one of the catalog's, and one that predicts a loss (an
          // allocation-only law would leave the rule "not applicable" on every proposal, a gate that never fires).
          if (key == "law") {
            std::vector<std::string> with_loss;
            for (const auto& law : catalog.laws)
              if (scaling::has_loss(law)) with_loss.push_back(law.name);
            const std::string& name = s.texts[key];
            if (std::find(with_loss.begin(), with_loss.end(), name) == with_loss.end()) {
              const bool known = std::any_of(catalog.laws.begin(), catalog.laws.end(),
                                             [&](const auto& law) { return law.name == name; });
              in.fail(at, "'" + name + "' " + (known ? "predicts no loss" : "is not a law of the catalog") +
                              (known ? std::string() : did_you_mean(name, with_loss)) +
                              "; accepted: " + join(with_loss, ", "));
            }
          }
        } else {
          if (!v.is_array()) in.fail(at, "must be a list of names");
          std::vector<std::string> known;
          if (spec.names == check::NameList::kGridRegions)
            for (const auto& g : catalog.grids) known.push_back(g.name);
          for (size_t i = 0; i < v.size(); ++i) {
            const std::string item = at + "[" + std::to_string(i) + "]";
            std::string name = in.text(v[i], item);
            if (!known.empty() && std::find(known.begin(), known.end(), name) == known.end())
              in.fail(item, "'" + name + "' is not a grid region of the catalog" + did_you_mean(name, known) +
                                "; accepted: " + join(known));
            s.allow.push_back(std::move(name));
          }
        }
      }
    }
    // A bound the rule needs, given none of: the rule would pass every proposal, a gate that never fires.
    std::vector<std::string> bounds;
    for (const auto& spec : info->settings)
      if (spec.kind == check::SettingKind::kNumber) bounds.emplace_back(spec.key);
    if (!bounds.empty() && !info->default_bounds &&
        std::none_of(bounds.begin(), bounds.end(), [&](const std::string& b) { return s.numbers.count(b) > 0; }))
      in.fail(path, "no bound: give " + join(bounds, " or ") + " (without one the rule passes every proposal)");
    for (const auto& spec : info->settings)
      if (spec.kind == check::SettingKind::kList && s.allow.empty())
        in.fail(path + "." + spec.key, std::string(!bare && value.contains(spec.key) ? "empty" : "missing") +
                                           ": no proposal could pass; name at least one");
    if (s.numbers.count("min") && s.numbers.count("max") && s.numbers["min"] > s.numbers["max"])
      in.fail(path + ".min", units::format_significant(s.numbers["min"], 6) + " is above max " +
                                 units::format_significant(s.numbers["max"], 6) + ": no proposal could pass");
    policy.rules.push_back(std::move(s));
  }
  return policy;
}

check::Policy read_policy(const catalog::Catalog& catalog, const std::string& path) {
  return parse_policy(catalog, input_name(path), read_input_text(path));
}

}  // namespace isoflop::doc
