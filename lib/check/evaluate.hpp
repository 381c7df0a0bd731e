// Holding proposals against a policy: each rule's verdict per proposal (pass, warn, fail, not applicable) with
// the measured value, the threshold, a reason and the fix; the gate's outcome over all of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "check/policy.hpp"
#include "check/proposal.hpp"

namespace isoflop::check {

ISOFLOP_NAMED_ENUM(Outcome, (kPass, "pass"), (kWarn, "warn"), (kFail, "fail"), (kNotApplicable, "not-applicable"));

struct Verdict {
  std::string rule;
  Outcome outcome = Outcome::kPass;
  Severity severity = Severity::kError;
  std::optional<double> value;      // in `unit`
  std::optional<double> threshold;  // the bound it was held to
  std::string unit;
  std::string reason;               // one line for a reviewer
  std::string fix;                  // the change that would pass, where one exists
  std::string field;                // the proposal field it points at
  int line = 1;                     // that field's line in the proposal file
  bool operator==(const Verdict&) const = default;
};

struct ProposalVerdicts {
  std::string source;   // proposal file
  std::string name;
  // Why the proposal could not be read or planned ("file:line: field: …"), where it could not; it then has no
  // verdicts, and fails the gate as bad input.
  std::string error;
  std::vector<Verdict> verdicts;  // in the policy's order
  int passed = 0, warned = 0, failed = 0, not_applicable = 0;
  bool operator==(const ProposalVerdicts&) const = default;
};

struct CheckResult {
  std::string policy;   // policy file
  bool strict = false;  // warnings fail the gate
  std::vector<ProposalVerdicts> proposals;
  int passed = 0, warned = 0, failed = 0, not_applicable = 0;  // over all proposals
  int errors = 0;                                              // proposals that could not be read or planned
  bool gate_passed() const { return errors == 0 && failed == 0 && (!strict || warned == 0); }
  bool operator==(const CheckResult&) const = default;
};

// One proposal's verdicts. Throws InputError "source:line: field: …" for a proposal that names what the
// catalog lacks.
ProposalVerdicts check_proposal(const catalog::Catalog& catalog, const Proposal& proposal, const Policy& policy);

// Every proposal, and the totals. One that could not be read, or names what the catalog lacks, is reported
// with its error beside the others (CI keeps every proposal's verdicts); a policy setting the catalog lacks
// throws InputError, as it would for every proposal.
CheckResult check_proposals(const catalog::Catalog& catalog, const std::vector<ReadProposal>& proposals,
                            const Policy& policy, bool strict);

// "3 proposals, 2 rules failed, 1 warned, 40 passed: gate failed".
std::string summary_line(const CheckResult& result);

}  // namespace isoflop::check
