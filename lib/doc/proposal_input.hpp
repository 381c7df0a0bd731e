// Reading what `isoflop check` holds against what: a proposal (YAML or JSON naming model, tokens, cluster,
// layout, schedule, region; or a plan document) and a policy (rules with thresholds and severities). Both go
// through the one document reader; YAML inputs keep each field's line, so every error and every verdict
// points at file:line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.hpp"
#include "check/policy.hpp"
#include "check/proposal.hpp"

namespace isoflop::doc {

// Throws InputError "file:line: field: what is wrong; accepted: …" for an unknown field (with a suggestion),
// a wrong type, a bad value, a duplicate key, or a file that cannot be read.
check::Proposal parse_proposal(const catalog::Catalog& catalog, const std::string& source, std::string_view text);
check::Proposal read_proposal(const catalog::Catalog& catalog, const std::string& path);
// Every proposal the paths name, each a file or a pattern (core/input_file.hpp's expand_input_patterns), in order;
// a file that cannot be read as a proposal is returned with its error, so the others are still checked. A pattern
// matching nothing, or a catalog error, throws.
std::vector<check::ReadProposal> read_proposals(const catalog::Catalog& catalog,
                                                const std::vector<std::string>& patterns);

// The same for a policy: an unknown rule or setting is refused with a suggestion; a negative cap too.
// Region names in an allow list must be the catalog's grids.
check::Policy parse_policy(const catalog::Catalog& catalog, const std::string& source, std::string_view text);
check::Policy read_policy(const catalog::Catalog& catalog, const std::string& path);

}  // namespace isoflop::doc
