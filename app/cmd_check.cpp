// isoflop check: the CI gate — training proposals held against a policy, a verdict per rule, exit 1 when an
// error-severity rule fails; table, JSON, JUnit XML and GitHub annotations.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "check/ci_output.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"
#include "doc/check_document.hpp"
#include "doc/proposal_input.hpp"

namespace isoflop::app {

int run_check(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("check"), args, {declared_options("check")}, {"proposal"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto& common = parsed->common;
  if (get_switch(vm, "list-rules")) {
    if (const auto f = get_string(vm, "format"); f && *f != "table")
      throw InputError("--list-rules: prints a table for reading; give it without -o/--format");
    std::fputs(doc::render_rule_list().c_str(), stdout);
    return 0;
  }
  const auto annotations = get_string(vm, "annotations");
  if (annotations && *annotations != "github")
    throw InputError("--annotations: '" + *annotations + "' is not one of github");
  const auto policy_path = get_string(vm, "policy");
  if (!policy_path) throw InputError("--policy: missing; give the policy file (share/examples/policies/default.yaml)");
  if (!has(vm, "proposal")) throw InputError("check: no proposal given; name one or more proposal files");
  const auto junit_path = get_string(vm, "junit");
  const NamedOutputs outputs = named_outputs(common);

  const catalog::Catalog cat = load_catalog(common);
  const check::Policy policy = doc::read_policy(cat, *policy_path);
  const auto proposals = doc::read_proposals(cat, vm["proposal"].as<std::vector<std::string>>());
  // After the inputs are read (each is noted as read), before anything is printed: a --junit that names one of them
  // is refused with nothing on stdout.
  if (junit_path) outputs.check(*junit_path, "junit");
  const check::CheckResult result = check::check_proposals(cat, proposals, policy, get_switch(vm, "strict"));

  const bool document_out = common.format != report::OutputFormat::kTable;
  const std::string timestamp = get_switch(vm, "timestamp")
                                    ? check::junit_timestamp(std::getenv("SOURCE_DATE_EPOCH"), std::time(nullptr))
                                    : "1970-01-01T00:00:00";
  if (common.format == report::OutputFormat::kJunit || common.format == report::OutputFormat::kCsv) {
    const std::string text = common.format == report::OutputFormat::kCsv ? check::render_csv(result)
                                                                        : check::render_junit(result, timestamp);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    write_document(common, doc::Json(result), [&] { return doc::render_check_page(result, common.color); },
                   "proposals");
  }
  if (junit_path) outputs.write(*junit_path, check::render_junit(result, timestamp), "junit");
  if (annotations) std::fputs(check::render_github_annotations(result).c_str(), document_out ? stderr : stdout);
  if (document_out && !common.quiet) std::fprintf(stderr, "%s\n", check::summary_line(result).c_str());
  // A proposal that could not be read is bad input (exit 2), said on stderr as any input error is; the reports
  // above still carry every other proposal's verdicts.
  for (const auto& p : result.proposals)
    if (!p.error.empty()) std::fprintf(stderr, "isoflop: error: %s\n", printable(p.error).c_str());
  if (result.errors > 0) return static_cast<int>(ExitStatus::kInvalidInput);
  return result.gate_passed() ? 0 : static_cast<int>(ExitStatus::kFailed);
}

}  // namespace isoflop::app
