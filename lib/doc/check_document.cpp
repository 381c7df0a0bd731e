// The check document's human page and the rule list.
#include "doc/check_document.hpp"

#include "check/rules.hpp"
#include "core/printable.hpp"
#include "report/text_table.hpp"

namespace isoflop::doc {
namespace {

std::string label(check::Outcome o, bool color) {
  static const char* const kText[] = {"PASS", "WARN", "FAIL", "n/a "};
  static const char* const kColor[] = {"\033[32m", "\033[33m", "\033[31m", "\033[2m"};
  const int i = static_cast<int>(o);
  return color ? std::string(kColor[i]) + kText[i] + "\033[0m" : std::string(kText[i]);
}

// A proposal that could not be read: as wide as the verdicts' labels.
std::string label_error(bool color) { return color ? "\033[31mERR \033[0m" : "ERR "; }

}  // namespace

std::string render_check_page(const check::CheckResult& result, bool color) {
  std::string out;
  size_t width = 0;
  for (const auto& p : result.proposals)
    for (const auto& v : p.verdicts) width = std::max(width, v.rule.size());
  for (const auto& p : result.proposals) {
    // Names, paths and reasons quote the input: printed as text, never as the terminal's escapes.
    out += p.name == p.source ? printable(p.source) + "\n" : printable(p.name) + " (" + printable(p.source) + ")\n";
    if (!p.error.empty()) out += "  " + label_error(color) + "  " + printable(p.error) + "\n";
    for (const auto& v : p.verdicts) {
      out += "  " + label(v.outcome, color) + "  " + v.rule + std::string(width - v.rule.size() + 2, ' ') +
             printable(v.reason) + "\n";
      if (!v.fix.empty() && (v.outcome == check::Outcome::kFail || v.outcome == check::Outcome::kWarn))
        out += std::string(10 + width, ' ') + "fix: " + printable(v.fix) + "\n";
    }
    out += "\n";
  }
  return out + check::summary_line(result) + "\n";
}

std::string render_rule_list() {
  report::TextTable t({"rule", "unit", "settings", "meaning", "source"}, {false, false, false, false, false});
  for (const auto& r : check::rule_table()) {
    std::string settings = "severity";
    for (const auto& s : r.settings) settings += std::string(", ") + s.key;
    t.add_row({r.name, *r.unit ? r.unit : "-", settings, r.meaning, r.source});
  }
  return t.render();
}

}  // namespace isoflop::doc
