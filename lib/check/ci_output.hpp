// The check result as CI systems read it: JUnit XML (GitLab's artifacts:reports:junit, Jenkins, GitHub test
// reporters) and GitHub Actions workflow commands that annotate the proposal's offending line.
#pragma once

#include <string>

#include "check/evaluate.hpp"

namespace isoflop::check {

// JUnit XML after the Ant schema (tests/check/JUnit.xsd): <testsuites> with one <testsuite> per proposal and one
// <testcase> per rule; a failed rule is a <failure> (message: the reason; text: value, threshold, file:line,
// fix), a rule that does not apply is <skipped>. The schema gives a passing testcase no other child, so a
// warning is a suite property "warn.RULE" (file:line: reason) and a "WARN RULE: …" block of the suite's
// <system-out>, with a "warnings" count; under strict it is a <failure> of type warn. `timestamp` is the
// suites' time as the schema writes it (UTC, "2026-01-31T12:00:00"); the default, the epoch, keeps the
// output byte-identical for the same inputs. Times are 0.
std::string render_junit(const CheckResult& result, const std::string& timestamp = "1970-01-01T00:00:00");

// The JUnit timestamp of `isoflop check --timestamp`: SOURCE_DATE_EPOCH's seconds when the variable is set
// (reproducible builds), else `now_s`, as "2026-01-31T12:00:00" (UTC). Throws InputError for a variable that is
// not a whole number of seconds since 1970.
std::string junit_timestamp(const char* source_date_epoch, long long now_s);

// One CSV row per proposal and rule: proposal, rule, severity, verdict, value, threshold, unit, reason, fix.
std::string render_csv(const CheckResult& result);

// One GitHub workflow command per failed or warned rule, "::error file=F,line=N,title=T::message", in
// proposal then policy order.
std::string render_github_annotations(const CheckResult& result);

}  // namespace isoflop::check
