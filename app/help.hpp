// Each command's --help text and option declarations are documentation, kept in share/help/<command>.txt and
// compiled in (CMakeLists.txt); share/help/options.txt declares the options several commands share.
// A file is a list of sections, each "[name]" to the next one: [usage], [summary], [options], [examples], and
// for a command with sub-commands "[usage VARIANT]" and "[options LIST]". Lines starting with '#' are comments.
// An [options] line declares one option as its help reads: "name VALUE: help" takes a value, "name: help" is a
// switch, "name VALUE...: help" takes many, "name,x ..." has the short form -x; an indented line continues the
// one above. Reading one is a line split: every start parses its command's options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace isoflop::app {

// Option declarations, one per string, as in an [options] section.
using OptionList = std::vector<std::string>;

// What a command says about itself for --help.
struct CommandHelp {
  std::string name;                   // "optimal", "validate run"
  std::string usage;                  // "isoflop optimal (--flops C | --params N | --target-loss L) [options]"
  std::string summary;                // one paragraph
  std::vector<std::string> examples;  // command lines, each optionally followed by "  # comment"
};

// The help of `command` from share/help/<command>.txt; with a `variant` ("run"), its "[usage run]" and the name
// "validate run".
CommandHelp command_help(std::string_view command, std::string_view variant = "");

// The options of `file`'s "[options]" section, or of "[options LIST]" when `list` is given.
OptionList declared_options(std::string_view file, std::string_view list = "");

// The embedded files: path ("share/help/plan.txt") and text. Generated from share/help/*.txt.
struct HelpResource {
  std::string_view path;
  std::string_view text;
};
const std::vector<HelpResource>& help_resources();

}  // namespace isoflop::app
