// Shared command-line plumbing: the common options, parsing with "did you mean", help text, typed
// option values through lib/units, and writing results in the chosen format.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "app/help.hpp"
#include "catalog/catalog.hpp"
#include "core/output_path.hpp"
#include "doc/document.hpp"
#include "report/output.hpp"
#include "units/quantity.hpp"

namespace isoflop::app {

namespace po = boost::program_options;

// The options every command accepts (CLI.md).
struct CommonOptions {
  report::OutputFormat format = report::OutputFormat::kTable;
  bool quiet = false;
  bool verbose = false;
  bool color = true;                        // off with --no-color, NO_COLOR, or when stdout is not a terminal
  std::optional<std::string> catalog_dir;   // --catalog DIR or ISOFLOP_CATALOG
  bool force = false;                       // --force: output files may replace existing files
};

// A command's parsed options and the common ones.
struct Parsed {
  po::variables_map values;
  CommonOptions common;
};

// Parses `args` against the options of `lists` (the command's own, then shared ones such as cluster_options())
// and the common options; `positional` names the options that may also be given by position, in order. Returns
// std::nullopt after printing help when --help/-h was given. Throws InputError for unknown or malformed options,
// with a suggestion. Sets up logging on stderr according to -q/-v.
std::optional<Parsed> parse_command(const CommandHelp& help, const std::vector<std::string>& args,
                                    const std::vector<OptionList>& lists,
                                    const std::vector<std::string>& positional = {});

// The catalog with --catalog / ISOFLOP_CATALOG overlaid.
catalog::Catalog load_catalog(const CommonOptions& common);

// Typed option values: std::nullopt when the option was not given; InputError naming "--name" otherwise.
std::optional<std::string> get_string(const po::variables_map& vm, const std::string& name);
// --plot FILE: the figures are SVG, so a name with another image format's suffix (iso.png, fig.pdf) is refused
// rather than filled with SVG under the wrong name.
std::optional<std::string> get_plot_path(const po::variables_map& vm);
std::optional<double> get_count(const po::variables_map& vm, const std::string& name,
                                units::Sign sign = units::Sign::kPositive);
std::optional<double> get_number(const po::variables_map& vm, const std::string& name,
                                 units::Sign sign = units::Sign::kPositive);
std::optional<long long> get_integer(const po::variables_map& vm, const std::string& name,
                                     units::Sign sign = units::Sign::kPositive);
// An integer option that must fit an int and stay at most `max_value` (a count of devices, experts, starts …).
std::optional<int> get_int(const po::variables_map& vm, const std::string& name,
                           units::Sign sign = units::Sign::kPositive, int max_value = 1'000'000);
std::optional<double> get_duration_s(const po::variables_map& vm, const std::string& name);
std::optional<double> get_money_usd(const po::variables_map& vm, const std::string& name,
                                    units::Sign sign = units::Sign::kPositive,
                                    std::string_view examples = "$2.5M, 40000, $40k");
template <class E, size_t N>
std::optional<E> get_enum(const po::variables_map& vm, const std::string& name, const EnumNames<E, N>& names) {
  if (!vm.count(name)) return std::nullopt;
  return names.parse(vm[name].as<std::string>(), "--" + name);
}
// A switch ("name: help" in an OptionList): whether it was given.
bool get_switch(const po::variables_map& vm, const std::string& name);
bool has(const po::variables_map& vm, const std::string& name);

// Throws InputError unless at most one (or, with `required`, exactly one) of `names` was given.
void require_one_of(const po::variables_map& vm, const std::vector<std::string>& names, bool required = true);

// Prints a result document in the chosen format (report::document_text) and checks that it went out.
void write_document(const CommonOptions& common, const report::Json& document,
                    const std::function<std::string()>& table, std::string_view csv_rows = "");

// --from FILE|-: the earlier result a command starts from. from_option declares it with `what` as help
// ("a plan or cost document"); read_from returns the document (JSON or YAML), checked to be one of `kinds`.
OptionList from_option(const std::string& what);
std::optional<doc::SourceDocument> read_from(const po::variables_map& vm, const std::vector<std::string_view>& kinds);

// The files a library call writes where the user named them: an existing file replaced only with --force, the
// fields spelled as flags (flags.hpp), and each said on stderr: "wrote PATH" (unless -q), and where a symbolic
// link led.
NamedOutputs named_outputs(const CommonOptions& common);

}  // namespace isoflop::app
