// Shell quoting and a small reader of shell words (the subset launch scripts use: quotes, escapes,
// continuations, comments, arrays and "${NAME[@]}").
#include "emit/shell.hpp"

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

ScriptWords read_script_words(const std::string& script) {
  Lexer lex{script, 0, {}, {}, false};
  lex.run();
  ScriptWords out;
  std::vector<std::string> command;
  for (size_t k = 0; k < lex.tokens.size(); ++k) {
    const std::string& t = lex.tokens[k];
    if (t.size() > 2 && t.compare(t.size() - 2, 2, "=(") == 0 && command.empty()) {
      std::vector<std::string>& items = out.arrays[t.substr(0, t.size() - 2)];
      items.clear();
      while (++k < lex.tokens.size() && lex.tokens[k] != ")")
        if (lex.tokens[k] != "\n") items.push_back(lex.tokens[k]);
    } else if (t == "\n" || t == ")") {
      if (!command.empty()) out.commands.push_back(command);
      command.clear();
    } else {
      command.push_back(t);
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
