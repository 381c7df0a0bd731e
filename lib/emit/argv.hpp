// A trainer's command-line option by its name ("num-layers", "num_nodes", "nproc-per-node": argparse's option
// string less its prefix) and the long-option word a command line spells it with. The syntax lives here only.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isoflop::emit {

// The word that names option `name` on a command line (argparse, torchrun, sbatch, Hydra).
std::string long_option(std::string_view name);
// The option a command-line word names; nullopt for a value (a word that is not a long option). The name keeps
// an attached value ("lr=3e-4"); split_attached parts them.
std::optional<std::string> option_name(std::string_view word);
// "lr=3e-4" as ("lr", "3e-4"); "lr" as ("lr", nullopt). argparse and torchrun read "--lr=3e-4" as "--lr 3e-4".
std::pair<std::string, std::optional<std::string>> split_attached(const std::string& name);
// Whether argparse takes `word` for an option rather than a value: it starts with '-', is longer than that, has
// no space, and is not a negative number as argparse matches one (-\d+ or -\d*.\d+: "-1e-4" is an option to it,
// so "--lr -1e-4" leaves --lr without its value).
bool argparse_option_like(std::string_view word);

// The value a launcher's command line gives one of `names` ("nnodes"; "nproc-per-node", "nproc_per_node"),
// written "--name value" or "--name=value"; the last wins, as in argparse. Words from `end` on are the program's
// own (torchrun … pretrain_gpt.py --nnodes is not torchrun's).
struct OptionValue {
  std::string name;  // as written, without the dashes
  std::string value;
};
std::optional<OptionValue> option_value(const std::vector<std::string>& command,
                                        std::initializer_list<std::string_view> names, size_t end = std::string::npos);

// The conversion argparse applies to an option's values (add_argument's type=); kString takes any word.
enum class ArgparseType { kString, kInt, kFloat };
// Whether Python's int() or float() reads `value`: surrounding whitespace, a sign, digits with single
// underscores between them; float() also a fraction, an exponent, inf, infinity and nan in any case.
bool argparse_accepts(std::string_view value, ArgparseType type);
// The number Python's float() makes of `value` (int() of an int-typed value is the same number), nullopt where
// float() refuses it: the value the rules on parsed arguments hold.
std::optional<double> argparse_number(std::string_view value);

}  // namespace isoflop::emit
