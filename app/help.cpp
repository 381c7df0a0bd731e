// Reading the embedded help files (format in help.hpp).
#include "app/help.hpp"

#include <stdexcept>

#include "core/sections.hpp"

namespace isoflop::app {
namespace {

std::string_view resource(std::string_view name) {
  const std::string path = "share/help/" + std::string(name) + ".txt";
  for (const auto& r : help_resources())
    if (r.path == path) return r.text;
  throw std::logic_error("no help file " + path);
}

// The lines of `file`'s section "[name]" (core/sections.hpp). A missing section is a fault of the build, not of
// the input.
std::vector<std::string_view> section(std::string_view file, std::string_view name) {
  auto lines = text_section(resource(file), name);
  if (!lines) throw std::logic_error("share/help/" + std::string(file) + ".txt has no [" + std::string(name) + "]");
  return *lines;
}

}  // namespace

CommandHelp command_help(std::string_view command, std::string_view variant) {
  const std::string usage = variant.empty() ? "usage" : "usage " + std::string(variant);
  CommandHelp help{std::string(command) + (variant.empty() ? "" : " " + std::string(variant)),
                   join_lines(section(command, usage)), join_lines(section(command, "summary")), {}};
  for (const auto line : section(command, "examples")) help.examples.emplace_back(line);
  return help;
}

OptionList declared_options(std::string_view file, std::string_view list) {
  return logical_lines(section(file, list.empty() ? "options" : "options " + std::string(list)));
}

}  // namespace isoflop::app
