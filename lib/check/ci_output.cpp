// JUnit XML through pugixml, and GitHub annotations.
#include "check/ci_output.hpp"

#include <charconv>
#include <ctime>
#include <map>
#include <pugixml.hpp>
#include <sstream>
#include <vector>

#include "check/rules.hpp"
#include "core/error.hpp"
#include "core/utf8.hpp"

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

// XML 1.0 has no control characters but tab, newline and carriage return, not even as character references
// (which pugixml writes for them): one in a proposal's name or path would make the report unreadable to every
// JUnit reader. Each becomes U+FFFD, the replacement character.
// Bytes that are no UTF-8 (a Latin-1 file name) become U+FFFD too: XML readers refuse the whole document otherwise.
std::string xml_text(const std::string& raw) {
  const std::string text = with_valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are no XML characters either.
    if (c == '\xEF' && i + 2 < text.size() && text[i + 1] == '\xBF' &&
        (text[i + 2] == '\xBE' || text[i + 2] == '\xBF')) {
      out += "\xEF\xBF\xBD";
      i += 2;
    } else if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      out += "\xEF\xBF\xBD";
    } else {
      out += c;
    }
  }
  return out;
}

struct SuiteCounts {
  int tests, failures, errors, skipped;
};

// A <testsuite> with the attributes the Ant JUnit schema requires.
pugi::xml_node add_suite(pugi::xml_node suites, const std::string& name, const std::string& timestamp, int id,
                         const SuiteCounts& n) {
  auto suite = suites.append_child("testsuite");
  suite.append_attribute("name") = xml_text(name).c_str();
  suite.append_attribute("timestamp") = timestamp.c_str();
  suite.append_attribute("hostname") = "isoflop";
  suite.append_attribute("tests") = n.tests;
  suite.append_attribute("failures") = n.failures;
  suite.append_attribute("errors") = n.errors;
  suite.append_attribute("skipped") = n.skipped;
  suite.append_attribute("time") = "0";
  suite.append_attribute("package") = "isoflop.check";
  suite.append_attribute("id") = id;
  return suite;
}

// The suite's <properties>, starting with the proposal's and the policy's files.
pugi::xml_node add_properties(pugi::xml_node suite, const std::string& proposal, const std::string& policy) {
  auto props = suite.append_child("properties");
  for (const auto& [name, value] : {std::pair<const char*, std::string>{"proposal", proposal}, {"policy", policy}}) {
    auto prop = props.append_child("property");
    prop.append_attribute("name") = name;
    prop.append_attribute("value") = xml_text(value).c_str();
  }
  return props;
}

}  // namespace

std::string render_junit(const CheckResult& r, const std::string& timestamp) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto suites = doc.append_child("testsuites");
  int id = 0;
  // Two proposals of one name would give two suites and test cases of the same names, which GitLab keys its
  // results by (one hides the other's failures): a shared name takes its file after it.
  std::map<std::string, int> named;
  for (const auto& p : r.proposals) ++named[p.name];
  for (const auto& p : r.proposals) {
    const std::string name = named[p.name] > 1 ? p.name + " (" + p.source + ")" : p.name;
    if (!p.error.empty()) {  // unreadable: one testcase in error, so the report keeps every other proposal
      auto suite = add_suite(suites, name, timestamp, id++, {1, 0, 1, 0});
      add_properties(suite, p.source, r.policy);
      auto c = suite.append_child("testcase");
      c.append_attribute("name") = "read";
      c.append_attribute("classname") = xml_text("isoflop.check." + name).c_str();
      c.append_attribute("time") = "0";
      auto e = c.append_child("error");
      e.append_attribute("message") = xml_text(p.error).c_str();
      e.append_attribute("type") = "input";
      e.text().set(xml_text(p.error).c_str());
      suite.append_child("system-out");
      suite.append_child("system-err");
      continue;
    }
    int failures = 0, skipped = 0;
    std::string warnings;  // the suite's <system-out>: the Ant schema gives a passing testcase no child
    std::vector<const Verdict*> warned;
    for (const auto& v : p.verdicts) {
      failures += fails(v, r.strict);
      skipped += v.outcome == Outcome::kNotApplicable;
      if (v.outcome == Outcome::kWarn && !r.strict) {
        warnings += "WARN " + v.rule + ": " + details(v, p.source);
        warned.push_back(&v);
      }
    }
    auto suite = add_suite(suites, name, timestamp, id++, {static_cast<int>(p.verdicts.size()), failures, 0, skipped});
    auto props = add_properties(suite, p.source, r.policy);
    auto count = props.append_child("property");  // reporters list a suite's properties beside its cases
    count.append_attribute("name") = "warnings";
    count.append_attribute("value") = static_cast<int>(warned.size());
    for (const Verdict* v : warned) {
      auto prop = props.append_child("property");
      prop.append_attribute("name") = xml_text("warn." + v->rule).c_str();
      std::string value = v->reason;
      if (!v->fix.empty()) value += "; fix: " + v->fix;
      prop.append_attribute("value") = xml_text(p.source + ":" + std::to_string(v->line) + ": " + value).c_str();
    }
    for (const auto& v : p.verdicts) {
      auto c = suite.append_child("testcase");
      c.append_attribute("name") = xml_text(v.rule).c_str();
      c.append_attribute("classname") = xml_text("isoflop.check." + name).c_str();
      c.append_attribute("time") = "0";
      if (fails(v, r.strict)) {
        auto f = c.append_child("failure");
        f.append_attribute("message") = xml_text(v.reason).c_str();
        f.append_attribute("type") = std::string(kSeverityNames.name(v.severity)).c_str();
        f.text().set(xml_text(details(v, p.source)).c_str());
      } else if (v.outcome == Outcome::kNotApplicable) {
        c.append_child("skipped").append_attribute("message") = xml_text("not applicable: " + v.reason).c_str();
      }
    }
    suite.append_child("system-out").text().set(xml_text(warnings).c_str());
    suite.append_child("system-err");
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

std::string junit_timestamp(const char* source_date_epoch, long long now_s) {
  long long seconds = now_s;
  if (source_date_epoch) {
    const std::string_view text(source_date_epoch);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || seconds < 0 ||
        seconds > 253402300799)  // 9999-12-31T23:59:59, the last time the schema's four-digit year writes
      throw InputError("SOURCE_DATE_EPOCH: '" + std::string(text) +
                       "' is not a whole number of seconds since 1970-01-01 (0 to 253402300799)");
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc);
  return buffer;
}

std::string render_csv(const CheckResult& r) {
  // RFC 4180: a cell with a comma, quote or line break is quoted, its quotes doubled.
  auto cell = [](const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  auto number = [](const std::optional<double>& v) {  // the shortest text that reads back to the same double
    if (!v) return std::string();
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, *v).ptr;
    return std::string(buffer, end);
  };
  std::string out = "proposal,rule,severity,verdict,value,threshold,unit,reason,fix\n";
  for (const auto& p : r.proposals) {
    if (!p.error.empty()) out += cell(p.source) + ",read,error,error,,,," + cell(p.error) + ",\n";
    for (const auto& v : p.verdicts)
      out += cell(p.source) + "," + cell(v.rule) + "," + std::string(kSeverityNames.name(v.severity)) + "," +
             std::string(kOutcomeNames.name(v.outcome)) + "," + number(v.value) + "," + number(v.threshold) + "," +
             cell(v.unit) + "," + cell(v.reason) + "," + cell(v.fix) + "\n";
  }
  return out;
}

std::string render_github_annotations(const CheckResult& r) {
  std::string out;
  for (const auto& p : r.proposals) {
    if (!p.error.empty()) {
      // "file:line: …": the line where the message names one.
      std::string line = "1";
      if (p.error.rfind(p.source + ":", 0) == 0) {
        const size_t at = p.source.size() + 1, end = p.error.find(':', at);
        if (end != std::string::npos && end > at && p.error.find_first_not_of("0123456789", at) == end)
          line = p.error.substr(at, end - at);
      }
      out += "::error file=" + escape_property(p.source) + ",line=" + line +
             ",title=" + escape_property("isoflop check: proposal in error") + "::" + escape_data(p.error) + "\n";
    }
    for (const auto& v : p.verdicts) {
      if (v.outcome != Outcome::kFail && v.outcome != Outcome::kWarn) continue;
      const bool error = fails(v, r.strict);
      std::string message = v.reason;
      if (!v.fix.empty()) message += "; fix: " + v.fix;
      out += std::string(error ? "::error" : "::warning") + " file=" + escape_property(p.source) +
             ",line=" + std::to_string(v.line) + ",title=" + escape_property("isoflop check: " + v.rule) +
             "::" + escape_data(message) + "\n";
    }
  }
  return out;
}

}  // namespace isoflop::check
