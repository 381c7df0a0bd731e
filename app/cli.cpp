// Shared command-line plumbing for every command.
#include "app/cli.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "app/flags.hpp"
#include "core/error.hpp"
#include "core/output_path.hpp"
#include "core/streams.hpp"
#include "core/suggest.hpp"
#include "doc/read_from.hpp"
#include "units/integer_limits.hpp"

namespace isoflop::app {
namespace {

// Adds the options declared in `list` (help.hpp) to `d`.
void add_declared(po::options_description& d, const OptionList& list) {
  for (const auto& spec : list) {
    const size_t colon = spec.find(": ");
    const std::string head = spec.substr(0, colon), text = spec.substr(colon + 2);
    const size_t space = head.find(' ');
    if (space == std::string::npos) {
      d.add_options()(head.c_str(), po::bool_switch(), text.c_str());
    } else if (head.ends_with("...")) {  // "proposal FILE...": many
      d.add_options()(head.substr(0, space).c_str(),
                      po::value<std::vector<std::string>>()->composing()->value_name(head.substr(space + 1)),
                      text.c_str());
    } else {
      d.add_options()(head.substr(0, space).c_str(), po::value<std::string>()->value_name(head.substr(space + 1)),
                      text.c_str());
    }
  }
}

po::options_description common_options() {
  po::options_description d("Common options");
  add_declared(d, declared_options("options", "common"));
  return d;
}

std::vector<std::string> long_names(const po::options_description& d) {
  std::vector<std::string> names;
  for (const auto& o : d.options()) names.push_back("--" + o->long_name());
  return names;
}

void setup_logging(const CommonOptions& common) {
  auto logger = spdlog::get("isoflop");
  if (!logger) {
    logger = spdlog::stderr_color_mt("isoflop", common.color ? spdlog::color_mode::automatic : spdlog::color_mode::never);
    logger->set_pattern("isoflop: %^%l%$: %v");
    spdlog::set_default_logger(logger);
  }
  spdlog::set_level(common.quiet ? spdlog::level::err : common.verbose ? spdlog::level::debug : spdlog::level::info);
}

std::string help_text(const CommandHelp& help, const po::options_description& options) {
  std::ostringstream out;
  out << "usage: " << help.usage << "\n\n" << help.summary << "\n\n";
  out << options << "\n" << common_options() << "\n";
  if (!help.examples.empty()) {
    out << "Examples:\n";
    for (const auto& e : help.examples) out << "  " << e << "\n";
  }
  out << "\nExit status: 0 success, 1 check failed or infeasible, 2 invalid input, 3 internal error.\n"
      << "See also: man isoflop-" << help.name << "\n";
  return out.str();
}

std::optional<Parsed> parse_command_line(const CommandHelp& help, const std::vector<std::string>& args,
                                         const po::options_description& options,
                                         const po::positional_options_description& positional) {
  po::options_description all;
  all.add(options).add(common_options());
  Parsed parsed;
  const std::string see = "; see 'isoflop help " + help.name + "'";
  try {
    po::command_line_parser parser(args);
    parser.options(all).style(po::command_line_style::unix_style ^ po::command_line_style::allow_guessing);
    parser.positional(positional);
    po::store(parser.run(), parsed.values);
    po::notify(parsed.values);
  } catch (const po::unknown_option& e) {
    const std::string name = e.get_option_name();
    throw InputError(help.name + ": unknown option '" + name + "'" + did_you_mean(name, long_names(all)) + see);
  } catch (const po::too_many_positional_options_error&) {
    // Named: the first bare argument past those the command takes (an option's value is not bare).
    std::vector<std::string> bare;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--") {
        bare.insert(bare.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
        break;
      }
      if (a.size() > 1 && a[0] == '-') {
        const bool is_long = a.rfind("--", 0) == 0;
        const std::string name =
            is_long ? a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2)
                    : a.substr(1, 1);
        const po::option_description* option = is_long ? all.find_nothrow(name, false) : nullptr;
        if (!is_long)  // "-j": the option whose short name it is ("-j [ --jobs ]")
          for (const auto& o : all.options())
            if (o->format_name().rfind("-" + name + " ", 0) == 0 || o->format_name() == "-" + name) option = o.get();
        const bool takes_value = option && option->semantic()->max_tokens() > 0 &&
                                 (is_long ? a.find('=') == std::string::npos : a.size() == 2);
        if (takes_value) ++i;
        continue;
      }
      bare.push_back(a);
    }
    const size_t taken = positional.max_total_count();
    const std::string extra = taken < bare.size() ? " '" + bare[taken] + "'" : "";
    throw InputError(help.name + ": unexpected extra argument" + extra + see);
  } catch (const po::multiple_occurrences& e) {
    // A bare argument sets the option at its position ("catalog laws" is "catalog --kind laws").
    std::string name = e.get_option_name();
    if (name.rfind("--", 0) == 0) name.erase(0, 2);
    bool positional_name = false;
    for (unsigned i = 0; i < positional.max_total_count() && i < 8; ++i)
      positional_name |= positional.name_for_position(i) == name;
    throw InputError(help.name + ": --" + name + " was given more than once" +
                     (positional_name ? " (a bare argument also sets it)" : "") + "; give it once" + see);
  } catch (const po::error& e) {
    throw InputError(help.name + ": " + e.what() + see);
  }
  if (get_switch(parsed.values, "help")) {
    std::cout << help_text(help, options);
    return std::nullopt;
  }
  CommonOptions& c = parsed.common;
  if (auto f = get_string(parsed.values, "format"))  // JUnit XML is a report of checks: only `check` writes it
    c.format = help.name == "check" ? report::kOutputFormatNames.parse(*f, "-o/--format")
                                    : report::kDocumentFormatNames.parse(*f, "--format");
  c.quiet = parsed.values["quiet"].as<bool>();
  c.verbose = parsed.values["verbose"].as<bool>();
  c.force = parsed.values["force"].as<bool>();
  if (c.quiet && c.verbose) throw InputError("--quiet and --verbose contradict each other; give one");
  const char* no_color = std::getenv("NO_COLOR");
  c.color = !parsed.values["no-color"].as<bool>() && !(no_color && *no_color) && ::isatty(STDOUT_FILENO);
  if (auto dir = get_string(parsed.values, "catalog")) {
    c.catalog_dir = *dir;
  } else if (const char* env = std::getenv("ISOFLOP_CATALOG"); env && *env) {
    c.catalog_dir = std::string(env);
  }
  // The overlay's files are inputs of every command, read or not: no output replaces one.
  if (c.catalog_dir) note_folder_inputs(*c.catalog_dir);
  setup_logging(c);
  return parsed;
}

}  // namespace

std::optional<Parsed> parse_command(const CommandHelp& help, const std::vector<std::string>& args,
                                    const std::vector<OptionList>& lists, const std::vector<std::string>& positional) {
  po::options_description options("Options");
  for (const auto& list : lists) add_declared(options, list);
  po::positional_options_description by_position;
  for (const auto& name : positional) {  // the last may take any number when declared "name VALUE..."
    const bool many = std::any_of(lists.begin(), lists.end(), [&](const OptionList& list) {
      return std::any_of(list.begin(), list.end(), [&](const std::string& spec) {
        return spec.rfind(name + " ", 0) == 0 && spec.find("...: ") != std::string::npos;
      });
    });
    by_position.add(name.c_str(), many ? -1 : 1);
  }
  return parse_command_line(help, args, options, by_position);
}

catalog::Catalog load_catalog(const CommonOptions& common) { return catalog::load_catalog(common.catalog_dir); }

bool has(const po::variables_map& vm, const std::string& name) { return vm.count(name) && !vm[name].defaulted(); }

std::optional<std::string> get_string(const po::variables_map& vm, const std::string& name) {
  if (!vm.count(name)) return std::nullopt;
  return vm[name].as<std::string>();
}

std::optional<std::string> get_plot_path(const po::variables_map& vm) {
  auto path = get_string(vm, "plot");
  if (!path) return path;
  const size_t dot = path->rfind('.');
  if (dot == std::string::npos || path->find('/', dot) != std::string::npos) return path;
  std::string suffix = path->substr(dot + 1);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* other : {"png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "pdf", "eps", "ps"})
    if (suffix == other)
      throw InputError("--plot: isoflop draws SVG, and '" + *path + "' names a ." + suffix +
                       " file; name it .svg (and convert it if another format is needed)");
  return path;
}

std::optional<double> get_count(const po::variables_map& vm, const std::string& name, units::Sign sign) {
  auto text = get_string(vm, name);
  if (!text) return std::nullopt;
  return units::parse_count(*text, "--" + name, sign);
}

std::optional<double> get_number(const po::variables_map& vm, const std::string& name, units::Sign sign) {
  auto text = get_string(vm, name);
  if (!text) return std::nullopt;
  return units::parse_number(*text, "--" + name, sign);
}

std::optional<long long> get_integer(const po::variables_map& vm, const std::string& name, units::Sign sign) {
  auto text = get_string(vm, name);
  if (!text) return std::nullopt;
  const long long value = units::parse_integer(*text, "--" + name, sign);
  std::string field = name;  // the options with a limit are spelled by the rule (flags.cpp)
  std::replace(field.begin(), field.end(), '-', '_');
  units::check_integer_limit(field, value, sign);
  return value;
}

std::optional<int> get_int(const po::variables_map& vm, const std::string& name, units::Sign sign, int max_value) {
  const auto v = get_integer(vm, name, sign);
  if (!v) return std::nullopt;
  if (*v > max_value)
    throw InputError("--" + name + ": " + std::to_string(*v) + " is too large (at most " + std::to_string(max_value) + ")");
  return static_cast<int>(*v);
}

std::optional<double> get_duration_s(const po::variables_map& vm, const std::string& name) {
  auto text = get_string(vm, name);
  if (!text) return std::nullopt;
  return units::parse_duration_s(*text, "--" + name);
}

std::optional<double> get_money_usd(const po::variables_map& vm, const std::string& name, units::Sign sign,
                                    std::string_view examples) {
  auto text = get_string(vm, name);
  if (!text) return std::nullopt;
  return units::parse_money_usd(*text, "--" + name, sign, examples);
}

bool get_switch(const po::variables_map& vm, const std::string& name) { return vm.count(name) && vm[name].as<bool>(); }

void require_one_of(const po::variables_map& vm, const std::vector<std::string>& names, bool required) {
  std::vector<std::string> given;
  for (const auto& n : names)
    if (vm.count(n)) given.push_back("--" + n);
  std::vector<std::string> dashed;
  for (const auto& n : names) dashed.push_back("--" + n);
  if (given.size() > 1) throw InputError(join(given, " and ") + " conflict; give only one of " + join(dashed, ", "));
  if (required && given.empty()) throw InputError("missing input; give one of " + join(dashed, ", "));
}

void write_document(const CommonOptions& common, const report::Json& document,
                    const std::function<std::string()>& table, std::string_view csv_rows) {
  // A result past a double's range (1e300 tokens times 6N) is no answer: refused before anything is written.
  if (const std::string where = report::first_non_finite(document); !where.empty())
    throw InputError("the result's " + where +
                     " is not a finite number: the inputs are too large or too small "
                     "for a double (its range is about 1e-308 to 1e308)");
  write_stdout(report::document_text(common.format, document, table, csv_rows));
}

OptionList from_option(const std::string& what) {
  return {"from FILE|-: start from an earlier result: " + what + " (- reads stdin)"};
}

std::optional<doc::SourceDocument> read_from(const po::variables_map& vm, const std::vector<std::string_view>& kinds) {
  const auto path = get_string(vm, "from");
  if (!path) return std::nullopt;
  return doc::read_from_document(*path, kinds);
}

NamedOutputs named_outputs(const CommonOptions& common) {
  const auto announce = [quiet = common.quiet](const OutputTarget& t) {
    if (quiet) return;
    if (t.via_link) std::fprintf(stderr, "wrote %s (through the link to %s)\n", t.path.c_str(), t.target.c_str());
    else std::fprintf(stderr, "wrote %s\n", t.path.c_str());
  };
  return {OutputRules{common.force, "use --force to replace it"}, flag_for_field, announce};
}

}  // namespace isoflop::app
