// JUnit XML through pugixml, and GitHub annotations.
#include "check/ci_output.hpp"

#include <pugixml.hpp>
#include <sstream>

#include "check/rules.hpp"

namespace isoflop::check {
namespace {

bool fails(const Verdict& v, bool strict) {
  return v.outcome == Outcome::kFail || (strict && v.outcome == Outcome::kWarn);
}

std::string details(const Verdict& v, const std::string& source) {
  std::string text = source + ":" + std::to_string(v.line) + ": " + v.field + "\n" + v.reason + "\n";
  if (v.value) text += "value: " + fmt(*v.value, 6) + (v.unit.empty() ? "" : " " + v.unit) + "\n";
  if (v.threshold) text += "threshold: " + fmt(*v.threshold, 6) + "\n";
  if (!v.fix.empty()) text += "fix: " + v.fix + "\n";
  return text;
}

// GitHub workflow commands escape %, CR and LF in the message, and also ':' and ',' in property values.
std::string escape_data(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}
std::string escape_property(const std::string& s) {
  std::string out;
  for (char c : escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

}  // namespace

std::string render_junit(const CheckResult& r) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto suites = doc.append_child("testsuites");
  int id = 0;
  for (const auto& p : r.proposals) {
    int failures = 0, skipped = 0;
    std::string warnings;
    for (const auto& v : p.verdicts) {
      failures += fails(v, r.strict);
      skipped += v.outcome == Outcome::kNotApplicable;
      if (v.outcome == Outcome::kWarn && !r.strict) warnings += "warning: " + v.rule + ": " + v.reason + "\n";
    }
    auto suite = suites.append_child("testsuite");
    suite.append_attribute("name") = p.name.c_str();
    suite.append_attribute("timestamp") = "1970-01-01T00:00:00";
    suite.append_attribute("hostname") = "isoflop";
    suite.append_attribute("tests") = static_cast<int>(p.verdicts.size());
    suite.append_attribute("failures") = failures;
    suite.append_attribute("errors") = 0;
    suite.append_attribute("skipped") = skipped;
    suite.append_attribute("time") = "0";
    suite.append_attribute("package") = "isoflop.check";
    suite.append_attribute("id") = id++;
    auto props = suite.append_child("properties");
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"proposal", p.source}, {"policy", r.policy}}) {
      auto prop = props.append_child("property");
      prop.append_attribute("name") = name;
      prop.append_attribute("value") = value.c_str();
    }
    for (const auto& v : p.verdicts) {
      auto c = suite.append_child("testcase");
      c.append_attribute("name") = v.rule.c_str();
      c.append_attribute("classname") = ("isoflop.check." + p.name).c_str();
      c.append_attribute("time") = "0";
      if (fails(v, r.strict)) {
        auto f = c.append_child("failure");
        f.append_attribute("message") = v.reason.c_str();
        f.append_attribute("type") = std::string(kSeverityNames.name(v.severity)).c_str();
        f.text().set(details(v, p.source).c_str());
      } else if (v.outcome == Outcome::kNotApplicable) {
        c.append_child("skipped").append_attribute("message") = ("not applicable: " + v.reason).c_str();
      }
    }
    suite.append_child("system-out").text().set(warnings.c_str());
    suite.append_child("system-err");
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

std::string render_github_annotations(const CheckResult& r) {
  std::string out;
  for (const auto& p : r.proposals)
    for (const auto& v : p.verdicts) {
      if (v.outcome != Outcome::kFail && v.outcome != Outcome::kWarn) continue;
      const bool error = fails(v, r.strict);
      std::string message = v.reason;
      if (!v.fix.empty()) message += "; fix: " + v.fix;
      out += std::string(error ? "::error" : "::warning") + " file=" + escape_property(p.source) +
             ",line=" + std::to_string(v.line) + ",title=" + escape_property("isoflop check: " + v.rule) +
             "::" + escape_data(message) + "\n";
    }
  return out;
}

}  // namespace isoflop::check
