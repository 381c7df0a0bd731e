// Every man page renders without warnings (groff -man -ww -z prints nothing), and every command has one.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "support/run_cli.hpp"

namespace {

std::string run_shell(const std::string& command, int* status) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) out.append(buffer, n);
  *status = pclose(pipe.release());
  return out;
}

}  // namespace

TEST_CASE("man pages render without warnings") {
  namespace fs = std::filesystem;
  int status = 0;
  run_shell("command -v groff >/dev/null 2>&1", &status);
  REQUIRE_MESSAGE(status == 0, "groff is required (share/quickstart.sh installs it)");
  int pages = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(ISOFLOP_SOURCE_DIR) / "man")) {
    if (entry.path().extension() != ".1") continue;
    ++pages;
    const std::string out = run_shell("groff -man -ww -z '" + entry.path().string() + "' 2>&1", &status);
    INFO(entry.path().string() << ": " << out);
    CHECK(status == 0);
    CHECK(out.empty());
  }
  CHECK(pages >= 2);  // isoflop.1 and at least one command page; the next test requires one per command
}

TEST_CASE("every command in the table has a man page") {
  namespace fs = std::filesystem;
  const auto r = isoflop::test::run_cli("--help");
  REQUIRE(r.status == 0);
  const auto start = r.out.find("Commands:\n");
  REQUIRE(start != std::string::npos);
  size_t pos = start + 10;
  int commands = 0;
  while (pos < r.out.size() && r.out.compare(pos, 2, "  ") == 0) {
    const size_t end = r.out.find(' ', pos + 2);
    const std::string name = r.out.substr(pos + 2, end - pos - 2);
    INFO(name);
    CHECK(fs::exists(fs::path(ISOFLOP_SOURCE_DIR) / "man" / ("isoflop-" + name + ".1")));
    ++commands;
    pos = r.out.find('\n', pos) + 1;
  }
  CHECK(commands >= 1);
  CHECK(fs::exists(fs::path(ISOFLOP_SOURCE_DIR) / "man" / "isoflop.1"));
}

TEST_CASE("bash completion knows every command") {
  namespace fs = std::filesystem;
  const fs::path completion = fs::path(ISOFLOP_SOURCE_DIR) / "share" / "completions" / "isoflop.bash";
  REQUIRE(fs::exists(completion));
  int status = 0;
  const std::string words = run_shell("bash -c 'source " + completion.string() +
                                          "; COMP_WORDS=(" ISOFLOP_BINARY " \"\"); COMP_CWORD=1; _isoflop; "
                                          "printf \"%s\\n\" \"${COMPREPLY[@]}\"'",
                                      &status);
  CHECK(status == 0);
  const auto help = isoflop::test::run_cli("--help").out;
  for (const char* name : {"catalog", "help"}) {
    INFO(name);
    CHECK(words.find(std::string(name) + "\n") != std::string::npos);
  }
  // Every command listed by --help is offered.
  size_t pos = help.find("Commands:\n") + 10;
  while (pos < help.size() && help.compare(pos, 2, "  ") == 0) {
    const size_t end = help.find(' ', pos + 2);
    const std::string name = help.substr(pos + 2, end - pos - 2);
    INFO(name);
    CHECK(words.find(name + "\n") != std::string::npos);
    pos = help.find('\n', pos) + 1;
  }
}
