// Shell quoting and a small reader of shell words (the subset launch scripts use: quotes, escapes,
// continuations, comments, arrays and "${NAME[@]}").
#include "emit/shell.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "emit/launch_spec.hpp"

namespace isoflop::emit {
namespace {

bool plain_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+';
}

bool safe_word_char(char c) { return plain_char(c) || c == '/' || c == ':' || c == ',' || c == '=' || c == '@'; }

// Splits a script into words and separators (";" for a command's end, ")" closing an array).
struct Lexer {
  const std::string& s;
  size_t i = 0;
  std::vector<std::string> tokens;  // separators are "\n" (end of command) and ")" (end of array)
  std::string word;
  bool in_word = false;

  void end_word() {
    if (in_word) tokens.push_back(word);
    word.clear();
    in_word = false;
  }
  void separator(const char* sep) {
    end_word();
    tokens.emplace_back(sep);
  }
  void run() {
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '\\' && i + 1 < s.size()) {
        if (s[++i] != '\n') word += s[i], in_word = true;
      } else if (c == '\'') {
        in_word = true;
        while (++i < s.size() && s[i] != '\'') word += s[i];
      } else if (c == '"') {
        in_word = true;
        while (++i < s.size() && s[i] != '"') {
          if (s[i] == '\\' && i + 1 < s.size() && std::string("\"\\$`").find(s[i + 1]) != std::string::npos) ++i;
          word += s[i];
        }
      } else if (c == '#' && !in_word) {
        while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      } else if (c == '\n' || c == ';' || c == '&' || c == '|') {
        separator("\n");
      } else if (c == '(' && in_word && !word.empty() && word.back() == '=') {
        word += c;
        end_word();
      } else if (c == ')') {
        separator(")");
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        end_word();
      } else {
        word += c;
        in_word = true;
      }
    }
    separator("\n");
  }
};

}  // namespace

std::string shell_quote(const std::string& text) {
  bool safe = !text.empty();
  for (char c : text) safe = safe && safe_word_char(c);
  if (safe) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void require_plain_name(const std::string& name, const std::string& field) {
  if (name.empty() || name.size() > 128) throw FieldError(field, "must be 1 to 128 characters");
  if (name[0] == '-') throw FieldError(field, escaped(name) + " starts with '-'; start it with a letter or digit");
  for (char c : name)
    if (!plain_char(c))
      throw FieldError(field, escaped(name) + " contains " + escaped(std::string(1, c)) +
                                  "; accepted: letters, digits, '.', '_', '-', '+'");
}

namespace {

constexpr size_t kLongestExpandedWord = 4096;
constexpr size_t kMostWords = 65536;  // a command's or an array's words: "${A[@]}" twice, line after line, doubles
// All the words' characters together, past the script's own: a copy of an array per line adds up too.
constexpr size_t kExpansionBudget = 1 << 20;

// Words that open and close a compound command or a function body: an assignment within one may not run (one
// branch of an if), so only those outside any are variables the rest of the script sees.
bool opens_block(const std::string& word) {
  return word == "if" || word == "case" || word == "for" || word == "while" || word == "until" || word == "{" ||
         word == "select";
}
bool closes_block(const std::string& word) { return word == "fi" || word == "esac" || word == "done" || word == "}"; }

bool identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// `word` with the script's variables expanded: $NAME, ${NAME} and ${NAME:-default}; a name the script does not set
// stays as written, default included.
std::string expanded(const std::string& word, const std::map<std::string, std::string>& variables) {
  std::string out;
  for (size_t i = 0; i < word.size();) {
    // A = $A$A, line after line, doubles: past a launch word's length the word stays as written.
    if (out.size() > kLongestExpandedWord) return word;
    if (word[i] != '$' || i + 1 == word.size()) {
      out += word[i++];
      continue;
    }
    if (word[i + 1] == '{') {
      const size_t close = word.find('}', i + 2);
      if (close == std::string::npos) {
        out += word.substr(i);
        break;
      }
      const std::string inner = word.substr(i + 2, close - i - 2);
      const size_t dflt = inner.find(":-");
      const std::string name = inner.substr(0, dflt);
      const auto it = identifier(name) ? variables.find(name) : variables.end();
      // A name the script does not set may come from the environment (SLURM_NNODES under sbatch): as written.
      if (it != variables.end())
        out += it->second;
      else
        out += word.substr(i, close + 1 - i);
      i = close + 1;
      continue;
    }
    size_t end = i + 1;
    while (end < word.size() && (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '_')) ++end;
    const auto it = variables.find(word.substr(i + 1, end - i - 1));
    out += it != variables.end() ? it->second : word.substr(i, end - i);
    i = end;
  }
  return out.size() > kLongestExpandedWord && out.size() > word.size() ? word : out;
}

// "${NAME[@]}" of an array the script assigns: its words; else none.
const std::vector<std::string>* array_named(const std::string& word,
                                            const std::map<std::string, std::vector<std::string>>& arrays) {
  if (!(word.size() > 6 && word.rfind("${", 0) == 0 && word.compare(word.size() - 4, 4, "[@]}") == 0)) return nullptr;
  const auto it = arrays.find(word.substr(2, word.size() - 6));
  return it != arrays.end() ? &it->second : nullptr;
}

}  // namespace

ScriptWords read_script_words(const std::string& script) {
  Lexer lex{script, 0, {}, {}, false};
  lex.run();
  ScriptWords out;
  std::vector<std::string> command;
  // What expansion may add beyond the script's own characters, all words together.
  size_t budget = script.size() + kExpansionBudget;
  int depth = 0;  // compound commands open around the current one
  // A word in a command or an array: an array's words spliced in, else the word with its variables expanded; past
  // the budget, as written.
  const auto add = [&](std::vector<std::string>& to, const std::string& word) {
    const auto* items = array_named(word, out.arrays);
    size_t bytes = 0;
    if (items && to.size() + items->size() <= kMostWords) {
      for (const auto& item : *items) bytes += item.size();
      if (bytes <= budget) {
        budget -= bytes;
        to.insert(to.end(), items->begin(), items->end());
        return;
      }
    }
    std::string w = items ? word : expanded(word, out.variables);
    if (w.size() > budget) w = word;
    budget -= std::min(budget, w.size());
    to.push_back(std::move(w));
  };
  for (size_t k = 0; k < lex.tokens.size(); ++k) {
    const std::string& t = lex.tokens[k];
    if (t.size() > 2 && t.compare(t.size() - 2, 2, "=(") == 0 && command.empty()) {
      std::vector<std::string> items;
      while (++k < lex.tokens.size() && lex.tokens[k] != ")")
        if (lex.tokens[k] != "\n") add(items, lex.tokens[k]);
      // Within a block the array may or may not be set afterwards: unknown from here on.
      if (depth == 0)
        out.arrays[t.substr(0, t.size() - 2)] = std::move(items);
      else
        out.arrays.erase(t.substr(0, t.size() - 2));
    } else if (t == "\n" || t == ")") {
      if (!command.empty() && closes_block(command[0])) depth = std::max(0, depth - 1);
      // NAME=value or export NAME=value alone, outside any if, case, loop or function body: a variable the words
      // after it may name.
      const bool exported = command.size() == 2 && command[0] == "export";
      if (depth == 0 && (command.size() == 1 || exported)) {
        const std::string& assignment = command.back();
        const size_t eq = assignment.find('=');
        if (eq != std::string::npos && identifier(assignment.substr(0, eq)))
          out.variables[assignment.substr(0, eq)] = assignment.substr(eq + 1);
      } else if (depth > 0) {
        // Within a block (one branch of an if): the name is unknown from here on.
        for (const auto& w : command) {
          const size_t eq = w.find('=');
          if (eq != std::string::npos && identifier(w.substr(0, eq))) out.variables.erase(w.substr(0, eq));
        }
      }
      if (!command.empty() && opens_block(command[0])) ++depth;
      if (!command.empty()) out.commands.push_back(command);
      command.clear();
    } else {
      add(command, t);
    }
  }
  return out;
}

size_t program_index(const std::vector<std::string>& command, std::string_view program) {
  for (size_t k = 0; k < command.size(); ++k)
    if (command[k].ends_with(program)) return k;
  return command.size();
}

std::vector<std::string> program_arguments(const ScriptWords& words, const std::string& program) {
  for (const auto& command : words.commands) {
    const size_t k = program_index(command, program);
    if (k == command.size()) continue;
    std::vector<std::string> args;
    for (size_t j = k + 1; j < command.size(); ++j) {
      const std::string& a = command[j];
      auto array = a.size() > 6 && a.rfind("${", 0) == 0 && a.compare(a.size() - 4, 4, "[@]}") == 0
                       ? words.arrays.find(a.substr(2, a.size() - 6))
                       : words.arrays.end();
      if (array != words.arrays.end())
        args.insert(args.end(), array->second.begin(), array->second.end());
      else
        args.push_back(a);
    }
    return args;
  }
  return {};
}

}  // namespace isoflop::emit
