// Shell quoting and a small reader of shell words (the subset launch scripts use: quotes, escapes,
// continuations, comments, variables, arrays, and the splitting of an unquoted expansion into words).
#include "emit/shell.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "core/error.hpp"
#include "emit/launch_spec.hpp"

namespace isoflop::emit {
namespace {

bool plain_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+';
}

bool safe_word_char(char c) { return plain_char(c) || c == '/' || c == ':' || c == ',' || c == '=' || c == '@'; }

// How a stretch of a word was written decides what the shell does with it: an unquoted expansion is split into
// words at blanks, a double-quoted one is not, and single quotes, an escaped character, $(…) and `…` stay as written.
enum class Quoting { kNone, kDouble, kLiteral };
struct Piece {
  std::string text;
  Quoting quoting;
};
// One word as the script wrote it, quotes removed but remembered.
struct RawWord {
  std::vector<Piece> pieces;
  std::string text() const {
    std::string out;
    for (const auto& p : pieces) out += p.text;
    return out;
  }
};
struct Token {
  // kAndOr: a command's end at && or ||, the next one runs or not depending on this one.
  enum Kind { kWord, kEnd, kAndOr, kOpenArray, kCloseArray } kind;
  RawWord word;  // kWord: the word; kOpenArray: the array's name, as one piece
};

// Splits a script into words and separators: a command's end (newline, ';', '&', '|'), NAME=( opening an array
// and ')' closing it.
struct Lexer {
  const std::string& s;
  size_t i = 0;
  std::vector<Token> tokens;
  RawWord word;
  bool in_word = false;

  void end_word() {
    if (in_word) tokens.push_back({Token::kWord, std::move(word)});
    word = {};
    in_word = false;
  }
  void separator(Token::Kind kind) {
    end_word();
    tokens.push_back({kind, {}});
  }
  // Starts a piece even when nothing follows: '' and "" are words.
  void open_piece(Quoting q) {
    in_word = true;
    word.pieces.push_back({"", q});
  }
  void append(Quoting q, char c) {
    if (word.pieces.empty() || word.pieces.back().quoting != q) open_piece(q);
    in_word = true;
    word.pieces.back().text += c;
  }
  // From s[i] (at '$(' or '`') to its close, as written: a command substitution isoflop does not run.
  void substitution() {
    const size_t from = i;
    if (s[i] == '`') {
      while (++i < s.size() && s[i] != '`') {
      }
    } else {
      int open = 0;
      for (; i < s.size(); ++i) {
        if (s[i] == '(') ++open;
        if (s[i] == ')' && --open == 0) break;
      }
    }
    if (i == s.size()) --i;
    for (size_t k = from; k <= i; ++k) append(Quoting::kLiteral, s[k]);
  }
  // ${…} unquoted, to its '}', so that "${X:-a b}" is one word.
  void braced() {
    for (; i < s.size(); ++i) {
      append(Quoting::kNone, s[i]);
      if (s[i] == '}') return;
    }
    --i;
  }
  bool opens_array() const {
    if (word.pieces.size() != 1 || word.pieces[0].quoting != Quoting::kNone) return false;
    const std::string& t = word.pieces[0].text;
    return t.size() > 1 && t.back() == '=';
  }
  // A redirection starts here: at a word's start, or after a file descriptor's digits ("2>&1").
  bool redirection_start() const {
    if (!in_word) return true;
    return word.pieces.size() == 1 && word.pieces[0].quoting == Quoting::kNone &&
           std::all_of(word.pieces[0].text.begin(), word.pieces[0].text.end(),
                       [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
  }
  // "> log", ">> log", "2>&1", "&> log", "< in": the shell opens files, the command never sees the words; dropped
  // with their target.
  // From s[i] at an opening `open` to its matching `close`, nested ones included; i ends on the close (or the end).
  void skip_balanced(char open, char close) {
    int depth = 0;
    for (; i < s.size(); ++i) {
      if (s[i] == open) ++depth;
      if (s[i] == close && --depth == 0) return;
    }
    i = s.size() - 1;
  }
  void redirection() {
    word = {};
    in_word = false;
    while (i < s.size() && (s[i] == '>' || s[i] == '<' || s[i] == '&')) ++i;
    if (i < s.size() && s[i] == '|' && i > 0 && s[i - 1] == '>') ++i;  // >| (clobber)
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    // The target, one word: quotes, $(…), ${…}, `…` and a process substitution >(…) / <(…) within it are skipped
    // whole (a blank inside them does not end it); dropped with the operator, as the command never sees it.
    if (i < s.size() && s[i] == '(' && i > 0 && (s[i - 1] == '>' || s[i - 1] == '<')) {
      skip_balanced('(', ')');
      return;
    }
    if (i + 1 < s.size() && (s[i] == '>' || s[i] == '<') && s[i + 1] == '(') {  // > >(tee log)
      ++i;
      skip_balanced('(', ')');
      return;
    }
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '\'' || c == '"') {
        const char quote = c;
        while (++i < s.size() && s[i] != quote)
          if (quote == '"' && s[i] == '\\') ++i;
      } else if (c == '\\') {
        ++i;
      } else if (c == '$' && i + 1 < s.size() && s[i + 1] == '(') {
        ++i;
        skip_balanced('(', ')');
      } else if (c == '$' && i + 1 < s.size() && s[i + 1] == '{') {
        ++i;
        skip_balanced('{', '}');
      } else if (c == '`') {
        while (++i < s.size() && s[i] != '`') {
        }
      } else if (std::isspace(static_cast<unsigned char>(c)) || c == ';' || c == '|' || c == '&' || c == ')') {
        break;
      }
    }
    if (i >= s.size()) i = s.size();
    --i;  // the loop's ++i comes back to the character that ended the target
  }
  void run() {
    for (; i < s.size(); ++i) {
      const char c = s[i];
      const char next = i + 1 < s.size() ? s[i + 1] : '\0';
      if (c == '\\' && i + 1 < s.size()) {
        if (s[++i] != '\n') append(Quoting::kLiteral, s[i]);
      } else if (c == '\'') {
        open_piece(Quoting::kLiteral);
        while (++i < s.size() && s[i] != '\'') word.pieces.back().text += s[i];
      } else if (c == '"') {
        open_piece(Quoting::kDouble);
        while (++i < s.size() && s[i] != '"') {
          if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
            ++i;  // a line continued within the quotes: both go, as in bash
          } else if (s[i] == '\\' && i + 1 < s.size() && std::string("\"\\$`").find(s[i + 1]) != std::string::npos) {
            append(Quoting::kLiteral, s[++i]);
          } else if ((s[i] == '$' && i + 1 < s.size() && s[i + 1] == '(') || s[i] == '`') {
            substitution();
          } else {
            append(Quoting::kDouble, s[i]);
          }
        }
      } else if (c == '$' && next == '\'') {
        // $'…' (ANSI-C quoting): the text as written, its escapes kept (no launch option spells one).
        open_piece(Quoting::kLiteral);
        for (++i; ++i < s.size() && s[i] != '\'';) {
          if (s[i] == '\\' && i + 1 < s.size()) word.pieces.back().text += s[i++];
          word.pieces.back().text += s[i];
        }
      } else if ((c == '$' && next == '(') || c == '`') {
        substitution();
      } else if ((c == '>' || c == '<' || (c == '&' && next == '>')) && redirection_start()) {
        redirection();
      } else if (c == '$' && next == '{') {
        braced();
      } else if (c == '#' && !in_word) {
        while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      } else if ((c == '&' && next == '&') || (c == '|' && next == '|')) {
        separator(Token::kAndOr);
        ++i;
      } else if (c == '\n' || c == ';' || c == '&' || c == '|') {
        separator(Token::kEnd);
      } else if (c == '(' && in_word && opens_array()) {
        std::string name = word.pieces[0].text;
        name.pop_back();
        word = {};
        in_word = false;
        tokens.push_back({Token::kOpenArray, {{{std::move(name), Quoting::kNone}}}});
      } else if (c == ')') {
        separator(Token::kCloseArray);
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        end_word();
      } else {
        append(Quoting::kNone, c);
      }
    }
    separator(Token::kEnd);
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
// Words after which a command starts within a block: "then A+=(x)", "do", "else".
bool opens_body(const std::string& word) { return word == "then" || word == "do" || word == "else" || word == "{"; }

bool identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// The words a raw word becomes, built piece by piece; `overflow` once a word or their number passes the bounds.
struct Fields {
  std::vector<std::string> words;
  std::string current;
  bool open = false;  // a word is under way, possibly empty ("" is a word)
  size_t characters = 0;
  size_t most_characters = 0;
  bool overflow = false;

  void check() {
    overflow = overflow || current.size() > kLongestExpandedWord || words.size() > kMostWords ||
               characters + current.size() > most_characters;
  }
  void add(std::string_view text) {
    current += text;
    open = true;
    check();
  }
  // An unquoted expansion: split into words at blanks, its first part joining the word under way.
  void add_split(std::string_view text) {
    for (char c : text) {
      if (blank(c)) {
        end();
      } else {
        current += c;
        open = true;
      }
    }
    check();
  }
  void end() {
    if (!open) return;
    characters += current.size();
    words.push_back(std::move(current));
    current.clear();
    open = false;
  }
};

struct Names {
  const std::map<std::string, std::string>& variables;
  const std::map<std::string, std::vector<std::string>>& arrays;
};

// One piece's text with the script's variables and arrays expanded into `f`: $NAME, ${NAME}, ${NAME:-default},
// ${NAME[@]} and ${NAME[*]}; split at blanks where `split` (unquoted, and not an assignment's value). A name the
// script does not set stays as written, default included: the environment may set it (SLURM_NNODES under sbatch).
void expand_piece(const std::string& text, bool split, bool quoted, const Names& names, Fields& f) {
  const auto value = [&](std::string_view v) { split ? f.add_split(v) : f.add(v); };
  const auto array = [&](const std::vector<std::string>& items, bool each_a_word) {
    for (size_t k = 0; k < items.size() && !f.overflow; ++k) {
      if (k > 0) {
        if (each_a_word && !split) {
          f.words.push_back(std::move(f.current));  // "${A[@]}": one word per item, empty ones too
          f.current.clear();
          f.check();
        } else if (each_a_word) {
          f.end();
        } else {
          f.add(" ");
        }
      }
      value(items[k]);
    }
  };
  for (size_t i = 0; i < text.size() && !f.overflow;) {
    if (text[i] != '$' || i + 1 == text.size()) {
      f.add(std::string_view(text).substr(i++, 1));
      continue;
    }
    if (text[i + 1] == '{') {
      const size_t close = text.find('}', i + 2);
      if (close == std::string::npos) {
        f.add(std::string_view(text).substr(i));
        return;
      }
      const std::string inner = text.substr(i + 2, close - i - 2);
      const std::string written = text.substr(i, close + 1 - i);
      i = close + 1;
      if (inner.size() > 3 && (inner.ends_with("[@]") || inner.ends_with("[*]"))) {
        const auto it = names.arrays.find(inner.substr(0, inner.size() - 3));
        if (it == names.arrays.end()) {
          f.add(written);
        } else {
          // "${A[@]}" is a word per item; "${A[*]}" one word; unquoted, either splits.
          array(it->second, inner.ends_with("[@]") || !quoted);
        }
        continue;
      }
      const size_t dflt = inner.find(":-");
      const std::string name = inner.substr(0, dflt);
      const auto it = identifier(name) ? names.variables.find(name) : names.variables.end();
      const auto arr = identifier(name) && dflt == std::string::npos ? names.arrays.find(name) : names.arrays.end();
      if (it == names.variables.end() && arr != names.arrays.end() && !arr->second.empty())
        value(arr->second.front());  // ${A} of an array is its first item
      else if (it == names.variables.end())
        f.add(written);
      else if (it->second.empty() && dflt != std::string::npos)
        value(std::string_view(inner).substr(dflt + 2));
      else
        value(it->second);
      continue;
    }
    if (text[i + 1] == '@' || text[i + 1] == '*') {
      i += 2;  // the script's own arguments, unknown here: none
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    const std::string name = text.substr(i + 1, end - i - 1);
    const auto var = identifier(name) ? names.variables.find(name) : names.variables.end();
    const auto arr = identifier(name) ? names.arrays.find(name) : names.arrays.end();
    if (var != names.variables.end())
      value(var->second);
    else if (arr != names.arrays.end() && !arr->second.empty())
      value(arr->second.front());  // $A of an array is its first item
    else
      f.add(std::string_view(text).substr(i, end - i));
    i = end;
  }
}

// "$@", "$*", "${@}" or "${A[@]}" of an empty array: nothing, even within double quotes.
bool vanishes(const std::string& text, const Names& names) {
  if (text == "$@" || text == "$*" || text == "${@}" || text == "${*}") return true;
  if (!(text.size() > 6 && text.rfind("${", 0) == 0 && text.ends_with("[@]}"))) return false;
  const auto it = names.arrays.find(text.substr(2, text.size() - 6));
  return it != names.arrays.end() && it->second.empty();
}

// The words `word` becomes, or nothing past the bounds (kLongestExpandedWord a word, kMostWords, `most_characters`
// all told). An unquoted expansion that is empty leaves no word; a quoted one leaves an empty word.
std::optional<std::vector<std::string>> expand(const RawWord& word, bool split, size_t most_characters,
                                               const Names& names) {
  Fields f;
  f.most_characters = most_characters;
  for (const auto& piece : word.pieces) {
    // "$@" (the script's arguments, unknown here) and "${A[@]}" of an empty array make no word, quoted or not.
    if (piece.quoting == Quoting::kDouble && vanishes(piece.text, names)) continue;
    if (piece.quoting == Quoting::kLiteral)
      f.add(piece.text);
    else
      expand_piece(piece.text, split && piece.quoting == Quoting::kNone, piece.quoting == Quoting::kDouble, names, f);
    // A quoted piece makes a word even when it is empty: "" and "$EMPTY".
    if (piece.quoting != Quoting::kNone) f.open = true;
    if (f.overflow) return std::nullopt;
  }
  f.end();
  if (f.overflow) return std::nullopt;
  return std::move(f.words);
}

// NAME=… as written at the start of a command: the name, else empty.
std::string assigned_name(const RawWord& word) {
  if (word.pieces.empty() || word.pieces[0].quoting != Quoting::kNone) return {};
  const std::string& t = word.pieces[0].text;
  size_t eq = t.find('=');
  if (eq != std::string::npos && eq > 0 && t[eq - 1] == '+') --eq;  // NAME+=value appends
  return eq != std::string::npos && identifier(std::string_view(t).substr(0, eq)) ? t.substr(0, eq) : std::string{};
}

}  // namespace

ScriptWords read_script_words(const std::string& script) {
  Lexer lex{script, 0, {}, {}, false};
  lex.run();
  ScriptWords out;
  const Names names{out.variables, out.arrays};
  // What expansion may add beyond the script's own characters, all words together.
  size_t budget = script.size() + kExpansionBudget;
  int depth = 0;             // compound commands open around the current one
  bool conditional = false;  // the current command follows && or ||: it may not run
  // The words of `word` added to `to`; past the bounds, the word as written (its quotes removed).
  const auto add = [&](std::vector<std::string>& to, const RawWord& word, bool split) {
    auto words = expand(word, split, budget, names);
    if (!words || to.size() + words->size() > kMostWords) {
      std::string as_written = word.text();
      if (as_written.size() > budget) as_written.clear();
      words = std::vector<std::string>{std::move(as_written)};
    }
    for (auto& w : *words) {
      budget -= std::min(budget, w.size());
      to.push_back(std::move(w));
    }
  };
  std::vector<RawWord> raw;  // the command under way
  const auto end_command = [&] {
    std::vector<std::string> command;
    // NAME=value words lead a command and are not split (bash's assignment words).
    bool leading = true;
    for (const auto& w : raw) {
      leading = leading && !assigned_name(w).empty();
      add(command, w, !leading && !(command.size() == 1 && command[0] == "export"));
    }
    raw.clear();
    if (!command.empty() && closes_block(command[0])) depth = std::max(0, depth - 1);
    // NAME=value or export NAME=value alone, outside any if, case, loop or function body: a variable the words
    // after it may name.
    const bool exported = command.size() == 2 && command[0] == "export";
    if (depth == 0 && !conditional && (command.size() == 1 || exported)) {
      const std::string& assignment = command.back();
      const size_t eq = assignment.find('=');
      const bool append = eq != std::string::npos && eq > 0 && assignment[eq - 1] == '+';
      const std::string name = eq == std::string::npos ? "" : assignment.substr(0, append ? eq - 1 : eq);
      if (identifier(name) && !append) {
        out.variables[name] = assignment.substr(eq + 1);
      } else if (identifier(name)) {
        // NAME+=value: onto the script's own value; onto one from the environment it stays unknown.
        const auto it = out.variables.find(name);
        if (it != out.variables.end() && it->second.size() + assignment.size() <= kLongestExpandedWord)
          it->second += assignment.substr(eq + 1);
        else
          out.variables.erase(name);
      }
    } else if (depth > 0 || conditional) {
      // Within a block (one branch of an if) or after && or ||: the name is unknown from here on.
      for (const auto& w : command) {
        const size_t eq = w.find('=');
        if (eq != std::string::npos && identifier(w.substr(0, eq))) out.variables.erase(w.substr(0, eq));
      }
    }
    if (!command.empty() && opens_block(command[0])) ++depth;
    if (!command.empty()) out.commands.push_back(std::move(command));
  };
  for (size_t k = 0; k < lex.tokens.size(); ++k) {
    Token& t = lex.tokens[k];
    // NAME=( … ) as a command: alone, or after the keyword that opens a branch or a loop's body.
    const bool after_keyword = raw.size() == 1 && raw[0].pieces.size() == 1 &&
                               raw[0].pieces[0].quoting == Quoting::kNone && opens_body(raw[0].pieces[0].text);
    if (t.kind == Token::kOpenArray && (raw.empty() || after_keyword)) {
      if (after_keyword) raw.clear();
      std::string name = t.word.pieces[0].text;
      const bool append = name.back() == '+';  // NAME+=( … ) adds to the array
      if (append) name.pop_back();
      std::vector<std::string> items;
      while (++k < lex.tokens.size() && lex.tokens[k].kind != Token::kCloseArray)
        if (lex.tokens[k].kind == Token::kWord) add(items, lex.tokens[k].word, true);
      const auto before = out.arrays.find(name);
      const bool maybe = depth > 0 || conditional;  // in an if's branch, a loop, or after && or ||
      if (maybe && append) {
        // Optional additions (`if [ … ]; then ARGS+=(--flag); fi`): the array is read without them.
      } else if (maybe || (append && before != out.arrays.end() && before->second.size() + items.size() > kMostWords)) {
        out.arrays.erase(name);  // set or not: unknown from here on; so is one appended to past the bound
      } else if (append && before != out.arrays.end()) {
        before->second.insert(before->second.end(), std::make_move_iterator(items.begin()),
                              std::make_move_iterator(items.end()));
      } else {
        out.arrays[name] = std::move(items);
      }
    } else if (t.kind == Token::kOpenArray) {
      raw.push_back({{{t.word.pieces[0].text + "=(", Quoting::kLiteral}}});
    } else if (t.kind == Token::kWord) {
      raw.push_back(std::move(t.word));
    } else {
      end_command();
      conditional = t.kind == Token::kAndOr;
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
    if (k != command.size()) return {command.begin() + static_cast<std::ptrdiff_t>(k) + 1, command.end()};
  }
  return {};
}

}  // namespace isoflop::emit
