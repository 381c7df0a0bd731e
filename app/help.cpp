// Reading the embedded help files (format in help.hpp).
#include "app/help.hpp"

#include <stdexcept>

namespace isoflop::app {
namespace {

std::string_view resource(std::string_view name) {
  const std::string path = "share/help/" + std::string(name) + ".txt";
  for (const auto& r : help_resources())
    if (r.path == path) return r.text;
  throw std::logic_error("no help file " + path);
}

// The lines of `file`'s section "[name]" without comments and trailing blank lines. A missing section is a fault
// of the build, not of the input.
std::vector<std::string_view> section(std::string_view file, std::string_view name) {
  const std::string_view text = resource(file);
  std::vector<std::string_view> lines;
  bool inside = false, found = false;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with('#')) continue;
    if (line.starts_with('[') && line.ends_with(']')) {
      inside = line.substr(1, line.size() - 2) == name;
      found = found || inside;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (!found) throw std::logic_error("share/help/" + std::string(file) + ".txt has no [" + std::string(name) + "]");
  return lines;
}

std::string joined(const std::vector<std::string_view>& lines) {
  std::string out;
  for (const auto line : lines) out.append(out.empty() ? "" : "\n").append(line);
  return out;
}

}  // namespace

CommandHelp command_help(std::string_view command, std::string_view variant) {
  const std::string usage = variant.empty() ? "usage" : "usage " + std::string(variant);
  CommandHelp help{std::string(command) + (variant.empty() ? "" : " " + std::string(variant)),
                   joined(section(command, usage)), joined(section(command, "summary")), {}};
  for (const auto line : section(command, "examples")) help.examples.emplace_back(line);
  return help;
}

OptionList declared_options(std::string_view file, std::string_view list) {
  OptionList options;
  for (const auto line : section(file, list.empty() ? "options" : "options " + std::string(list))) {
    if (line.empty()) continue;
    if (line.starts_with(' ') && !options.empty())
      options.back().append(" ").append(line.substr(line.find_first_not_of(' ')));
    else
      options.emplace_back(line);
  }
  return options;
}

}  // namespace isoflop::app
