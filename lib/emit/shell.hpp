// Shell words in and out: quoting what a script passes on, refusing names a #SBATCH line cannot quote, and
// reading a launch script's command back into words (for checking a hand-written one).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace isoflop::emit {

// `text` as one shell word: unchanged when it is made of safe characters, else in single quotes.
std::string shell_quote(const std::string& text);

// Throws FieldError(field) unless `name` is 1-128 letters, digits, '.', '_', '-' or '+', not starting with '-' (a
// job name or file name
// that goes into #SBATCH lines, which sbatch reads without a shell, so quoting cannot protect it).
void require_plain_name(const std::string& name, const std::string& field);

// A script read as shell words: command lines (words of one simple command, quotes removed, backslash-newlines
// joined, comments dropped), the arrays it assigns (NAME=( … )) and the variables it sets (NAME=value or export
// NAME=value, alone on a line, outside any if, case, loop or braces: one set within them is unknown after). Each
// word after an assignment has what it names expanded as the shell does: $NAME, ${NAME}, ${NAME:-default},
// ${NAME[@]} and ${NAME[*]}; unquoted, the value is split into words at blanks (torchrun $DISTRIBUTED_ARGS), quoted
// it is one word ("${ARGS[@]}" one per item), and single quotes or an escaped '$' keep it as written. A name the
// script does not set stays as written (the environment may set it), as do $(…) and `…`; all the expansions
// together are bounded by the script's size and a mebibyte. NAME+=value and NAME+=( … ) append; in a branch, a
// loop or after && / || an append is not read (optional flags) and a value set there is unknown after. A
// redirection (> log, 2>&1, > >(tee log)) and its target are dropped: the command never sees them.
struct ScriptWords {
  std::vector<std::vector<std::string>> commands;
  std::map<std::string, std::vector<std::string>> arrays;
  std::map<std::string, std::string> variables;
};
ScriptWords read_script_words(const std::string& script);

// The words after the one ending in `program` ("pretrain_gpt.py") in the first command that runs it. Empty when
// no command runs it.
std::vector<std::string> program_arguments(const ScriptWords& words, const std::string& program);
// Where in one command the word ending in `program` stands (command.size() when none does): the launcher's
// options come before it, the program's own after.
size_t program_index(const std::vector<std::string>& command, std::string_view program);

}  // namespace isoflop::emit
