// Every option a command accepts is documented where users look for it, and nothing else is: its --help (built
// from share/help/<command>.txt, the same declarations the parser reads), its man page's option tags and the bash
// completion. The common options are documented once, in isoflop.1.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"

namespace {

using Names = std::set<std::string>;

const Names kCommon = {"format", "quiet", "verbose", "no-color", "catalog", "force", "help"};

std::string section(const std::string& text, const std::string& from, const std::string& to) {
  const size_t start = text.find(from);
  if (start == std::string::npos) return "";
  return text.substr(start, text.find(to, start + from.size()) - start);
}

// The long names of the option lines ("  --params N  …", "  -j [ --jobs ] N  …") of a help section.
Names option_lines(const std::string& text) {
  Names names;
  static const std::regex line(R"(^  (?:-\w \[ )?--([a-z][a-z0-9-]*))");
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (std::smatch m; std::regex_search(l, m, line)) names.insert(m[1]);
  return names;
}

// A command's own options, as its --help lists them.
Names help_options(const std::string& command) {
  const auto r = isoflop::test::run_cli(command + " --help");
  REQUIRE(r.status == 0);
  return option_lines(section(r.out, "\nOptions:\n", "\nCommon options:\n"));
}

// The options a man page documents: the flags of the tag lines after .TP/.TQ, in any section.
Names man_options(const std::string& page) {
  std::ifstream in(std::string(ISOFLOP_SOURCE_DIR) + "/man/" + page + ".1");
  REQUIRE(in);
  Names names;
  static const std::regex macro(R"(^\.(B|BI|BR|IR|RB|I)\b)"), flag(R"(\\-\\-([a-z][a-z0-9\\-]*[a-z0-9]))");
  bool tag = false;
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with(".TP") || l.starts_with(".TQ")) {
      tag = true;
      continue;
    }
    tag = tag && std::regex_search(l, macro);
    if (!tag) continue;
    for (std::sregex_iterator it(l.begin(), l.end(), flag), end; it != end; ++it)
      names.insert(std::regex_replace((*it)[1].str(), std::regex(R"(\\-)"), "-"));
  }
  return names;
}

// What the bash completion offers after `isoflop COMMAND --`.
Names completion_options(const std::string& command) {
  const std::string script = std::string(ISOFLOP_SOURCE_DIR) + "/share/completions/isoflop.bash";
  const std::string shell = "bash -c 'source " + script + "; COMP_WORDS=(" ISOFLOP_BINARY " " + command +
                            " --); COMP_CWORD=2; _isoflop; printf \"%s\\n\" \"${COMPREPLY[@]}\"'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(shell.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) out.append(buffer, n);
  Names names;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (l.starts_with("--")) names.insert(l.substr(2));
  return names;
}

std::vector<std::string> commands() {
  const auto r = isoflop::test::run_cli("--help");
  std::vector<std::string> names;
  std::istringstream in(section(r.out, "Commands:\n", "\n\n"));
  std::string l;
  std::getline(in, l);
  while (std::getline(in, l) && l.starts_with("  ")) names.push_back(l.substr(2, l.find(' ', 2) - 2));
  return names;
}

Names without(Names names, const Names& drop) {
  for (const auto& n : drop) names.erase(n);
  return names;
}

}  // namespace

TEST_CASE("every option a command accepts is in its help, its man page and the completion, and no other") {
  const auto names = commands();
  REQUIRE(names.size() >= 14);
  const Names common_help = option_lines(section(isoflop::test::run_cli("loss --help").out, "Common options:", "\n\n"));
  CHECK(common_help == kCommon);
  for (const auto& command : names) {
    INFO(command);
    Names accepted = help_options(command);
    REQUIRE(!accepted.empty());
    const Names own_page = man_options("isoflop-" + command);
    Names documented = own_page;
    if (command == "validate")  // one page for the design, `validate run` and `validate report`
      for (const char* sub : {"validate run", "validate report"})
        for (const auto& n : help_options(sub)) accepted.insert(n);
    if (command == "emit")  // emit takes the plan options, documented in isoflop-plan(1)
      for (const auto& n : man_options("isoflop-plan")) documented.insert(n);
    for (const auto& n : accepted) {
      INFO("--" << n);
      CHECK(documented.count(n) == 1);
    }
    for (const auto& n : without(own_page, kCommon)) {
      INFO("--" << n << " is in the man page but not accepted");
      CHECK(accepted.count(n) == 1);
    }
    CHECK(without(completion_options(command), kCommon) == without(help_options(command), kCommon));
  }
  const Names top = man_options("isoflop");
  for (const auto& n : kCommon) {
    INFO("--" << n << " in isoflop.1");
    CHECK(top.count(n) == 1);
  }
}
