// isoflop check: the CI gate — training proposals held against a policy, a verdict per rule, exit 1 when an
// error-severity rule fails; table, JSON, JUnit XML and GitHub annotations.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "check/ci_output.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "doc/check_document.hpp"
#include "doc/proposal_input.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "check",
    "isoflop check PROPOSAL... --policy POLICY [--strict] [-o table|json|yaml|junit|csv] [--junit FILE]\n"
    "       [--timestamp] [--annotations github]\n"
    "       isoflop check --list-rules",
    "The CI gate. Each proposal (a YAML or JSON file naming the model, tokens, cluster, layout, schedule, region and\n"
    "prices; or a plan document from 'plan -o json') is planned as it stands: its exact parameters, the memory and\n"
    "step time of its layout, the MFU, days, GPU-hours, energy, CO2e and money. Every rule of the policy then gives a\n"
    "verdict (pass, warn, fail or not applicable) with the measured value, the threshold, a reason and, where one\n"
    "exists, the fix (the compute-optimal N and D, the smallest change that fits memory). A rule of severity error\n"
    "that fails makes the exit status 1; warnings pass unless --strict. Bad input (a malformed proposal or policy,\n"
    "an unknown rule) is exit 2 naming file:line. Quoted patterns ('proposals/*.yaml') are expanded in sorted order.\n"
    "-o junit writes JUnit XML (one testsuite per proposal, one testcase per rule) for GitLab, Jenkins and GitHub\n"
    "test reporters (a warning is a suite property and <system-out> text; a failure under --strict); --junit FILE\n"
    "writes it beside the table. -o csv writes one row per proposal and rule. --annotations github adds\n"
    "'::error file=F,line=N::' lines pointing at the proposal's offending line (on stderr when stdout carries a\n"
    "document). Output is byte-identical for the same inputs: the JUnit timestamp is the epoch unless --timestamp\n"
    "(now in UTC, or SOURCE_DATE_EPOCH when set).",
    {"isoflop check share/examples/proposals/*.yaml --policy share/examples/policies/default.yaml",
     "isoflop check proposal.yaml --policy policy.yaml -o json > verdicts.json",
     "isoflop check 'proposals/*.yaml' --policy policy.yaml --junit report.xml --annotations github",
     "isoflop plan --gpus 1024 --gpu h100-sxm5-80gb --days 30 -o json > plan.json; isoflop check plan.json --policy p.yaml",
     "isoflop check --list-rules"}};

const OptionList kOptions = {
    "proposal FILE...: proposals (YAML or JSON, or plan documents); quoted patterns are expanded",
    "policy FILE: the policy: rules with thresholds and severities (share/examples/policies/default.yaml)",
    "strict: warnings fail the gate too",
    "junit FILE: also write the JUnit XML report to FILE",
    "timestamp: the JUnit timestamp is now (UTC), or SOURCE_DATE_EPOCH when set, instead of the epoch",
    "annotations KIND: CI annotations of failed and warned rules: github",
    "list-rules: print every rule with its meaning, unit, settings and source"};

}  // namespace

int run_check(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions}, {"proposal"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto& common = parsed->common;
  if (get_switch(vm, "list-rules")) {
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
  if (junit_path) check_output_file(common, *junit_path, "--junit");

  const catalog::Catalog cat = load_catalog(common);
  const check::Policy policy = doc::read_policy(*policy_path);
  std::vector<check::Proposal> proposals;
  for (const auto& path : expand_input_patterns(vm["proposal"].as<std::vector<std::string>>()))
    proposals.push_back(doc::read_proposal(cat, path));
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
  if (junit_path) write_output_file(common, *junit_path, check::render_junit(result, timestamp), "--junit");
  if (annotations) std::fputs(check::render_github_annotations(result).c_str(), document_out ? stderr : stdout);
  if (document_out && !common.quiet) std::fprintf(stderr, "%s\n", check::summary_line(result).c_str());
  return result.gate_passed() ? 0 : static_cast<int>(ExitStatus::kFailed);
}

}  // namespace isoflop::app
