// The `check` document ("isoflop/check/v2"): every proposal's verdicts against a policy and the gate's totals,
// its human page, and the rule list `check --list-rules` prints.
#pragma once

#include <string>

#include "check/evaluate.hpp"
#include "doc/fields.hpp"

namespace isoflop::doc {

template <>
inline constexpr auto fields<check::Verdict> = std::tuple{
    field("rule", &check::Verdict::rule), field("verdict", &check::Verdict::outcome, names(check::kOutcomeNames)),
    field("severity", &check::Verdict::severity, names(check::kSeverityNames)),
    field("value", &check::Verdict::value), field("threshold", &check::Verdict::threshold),
    field("unit", &check::Verdict::unit), field("reason", &check::Verdict::reason),
    field("fix", &check::Verdict::fix, null_when_empty()), field("field", &check::Verdict::field),
    field("line", &check::Verdict::line)};

template <>
inline constexpr auto fields<check::ProposalVerdicts> = std::tuple{
    field("source", &check::ProposalVerdicts::source), field("name", &check::ProposalVerdicts::name),
    field("error", &check::ProposalVerdicts::error, null_when_empty()),
    group("summary", field("passed", &check::ProposalVerdicts::passed),
          field("warned", &check::ProposalVerdicts::warned), field("failed", &check::ProposalVerdicts::failed),
          field("not_applicable", &check::ProposalVerdicts::not_applicable)),
    field("verdicts", &check::ProposalVerdicts::verdicts)};

template <>
inline constexpr auto fields<check::CheckResult> = std::tuple{
    schema_key("check"),
    group("inputs", field("policy", &check::CheckResult::policy), field("strict", &check::CheckResult::strict)),
    derived("gate", [](const check::CheckResult& r) { return r.gate_passed() ? "passed" : "failed"; }),
    group("summary", field("passed", &check::CheckResult::passed), field("warned", &check::CheckResult::warned),
          field("failed", &check::CheckResult::failed), field("not_applicable", &check::CheckResult::not_applicable),
          field("errors", &check::CheckResult::errors)),
    field("proposals", &check::CheckResult::proposals)};

// One block per proposal: a line per rule (verdict, rule, reason, and the fix under it), then the summary line.
// `color`: ANSI colours for the verdicts.
std::string render_check_page(const check::CheckResult& result, bool color);

// Every rule: name, unit, settings, meaning and source.
std::string render_rule_list();

}  // namespace isoflop::doc
