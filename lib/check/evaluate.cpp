// Running the rules of a policy over proposals.
#include "check/evaluate.hpp"

#include "check/facts.hpp"
#include "check/rules.hpp"
#include "core/error.hpp"

namespace isoflop::check {
namespace {

void count(Outcome o, int& passed, int& warned, int& failed, int& not_applicable) {
  switch (o) {
    case Outcome::kPass: ++passed; break;
    case Outcome::kWarn: ++warned; break;
    case Outcome::kFail: ++failed; break;
    case Outcome::kNotApplicable: ++not_applicable; break;
  }
}

// The first of the rule's fields ("arch|params") the proposal states, else the first.
std::string pointed_field(const Proposal& proposal, const std::string& fields) {
  size_t start = 0;
  while (true) {
    const size_t bar = fields.find('|', start);
    const std::string f = fields.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    if (proposal.marks.count(f)) return f;
    if (bar == std::string::npos) return fields.substr(0, fields.find('|'));
    start = bar + 1;
  }
}

// The policy's verdicts on a proposal's facts.
ProposalVerdicts judge(const Facts& facts, const Proposal& proposal, const Policy& policy) {
  ProposalVerdicts out;
  out.source = proposal.source;
  out.name = proposal.name;
  for (const RuleSetting& setting : policy.rules) {
    const RuleInfo* info = find_rule(setting.rule);
    if (!info) throw InputError(policy.source + ":" + std::to_string(setting.line) + ": unknown rule '" + setting.rule + "'");
    Finding f;
    try {
      f = info->measure(setting, facts);
    } catch (const FieldError& e) {  // a setting naming what the catalog lacks (law, trainer)
      throw InputError(policy.source + ":" + std::to_string(setting.line) + ": " + setting.rule + "." + e.field() +
                       ": " + e.message());
    }
    Verdict v;
    v.rule = setting.rule;
    v.severity = setting.severity;
    v.outcome = !f.applicable ? Outcome::kNotApplicable
                : f.holds     ? Outcome::kPass
                : setting.severity == Severity::kError ? Outcome::kFail
                                                       : Outcome::kWarn;
    v.value = f.value;
    v.threshold = f.threshold;
    v.unit = info->unit;
    v.reason = f.reason;
    v.fix = f.fix;
    v.field = pointed_field(proposal, info->field);
    v.line = line_of(proposal.marks, v.field);
    count(v.outcome, out.passed, out.warned, out.failed, out.not_applicable);
    out.verdicts.push_back(std::move(v));
  }
  return out;
}

}  // namespace

ProposalVerdicts check_proposal(const catalog::Catalog& catalog, const Proposal& proposal, const Policy& policy) {
  return judge(assess(catalog, proposal), proposal, policy);
}

CheckResult check_proposals(const catalog::Catalog& catalog, const std::vector<ReadProposal>& proposals,
                            const Policy& policy, bool strict) {
  CheckResult r;
  r.policy = policy.source;
  r.strict = strict;
  for (const auto& p : proposals) {
    std::optional<Facts> facts;
    std::string error = p.error;
    if (p.proposal) {
      try {
        facts = assess(catalog, *p.proposal);
      } catch (const CatalogError&) {  // the catalog itself: every proposal's problem
        throw;
      } catch (const InputError& e) {
        error = e.what();
      }
    }
    if (!facts) {
      r.proposals.push_back({p.source, p.proposal ? p.proposal->name : p.source, error, {}});
      ++r.errors;
      continue;
    }
    r.proposals.push_back(judge(*facts, *p.proposal, policy));
    const auto& v = r.proposals.back();
    r.passed += v.passed;
    r.warned += v.warned;
    r.failed += v.failed;
    r.not_applicable += v.not_applicable;
  }
  return r;
}

std::string summary_line(const CheckResult& r) {
  const size_t n = r.proposals.size();
  return std::to_string(n) + (n == 1 ? " proposal: " : " proposals: ") +
         (r.errors > 0 ? std::to_string(r.errors) + " in error, " : std::string()) + std::to_string(r.failed) +
         " failed, " + std::to_string(r.warned) + " warned, " + std::to_string(r.passed) + " passed, " +
         std::to_string(r.not_applicable) + " not applicable; gate " +
         (r.gate_passed()                              ? "passed"
          : r.strict && r.failed == 0 && r.errors == 0 ? "failed (strict: warnings fail)"
                                                       : "failed");
}

}  // namespace isoflop::check
