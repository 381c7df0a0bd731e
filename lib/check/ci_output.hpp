// The check result as CI systems read it: JUnit XML (GitLab's artifacts:reports:junit, Jenkins, GitHub test
// reporters) and GitHub Actions workflow commands that annotate the proposal's offending line.
#pragma once

#include <string>

#include "check/evaluate.hpp"

namespace isoflop::check {

// JUnit XML after the Ant schema (tests/check/JUnit.xsd): <testsuites> with one <testsuite> per proposal and one
// <testcase> per rule; a failed rule is a <failure> (message: the reason; text: value, threshold, file:line,
// fix), a rule that does not apply is <skipped>, a warning is noted in the suite's <system-out> (and is a
// failure under strict). Deterministic: the schema's required timestamp is fixed at the epoch, times are 0.
std::string render_junit(const CheckResult& result);

// One GitHub workflow command per failed or warned rule, "::error file=F,line=N,title=T::message", in
// proposal then policy order.
std::string render_github_annotations(const CheckResult& result);

}  // namespace isoflop::check
