#include "emit/argv.hpp"

#include <cstdlib>
#include <string>

namespace isoflop::emit {
namespace {
// argparse's default prefix_chars; a long option starts with two of them (torchrun, sbatch and Hydra agree).
constexpr char kPrefixChar = '-';
bool long_prefixed(std::string_view word) { return word.size() >= 2 && word[0] == kPrefixChar && word[1] == kPrefixChar; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Decimal digits from `at`, single underscores only between two digits (PEP 515); how many characters it took.
size_t digits(std::string_view s, size_t at) {
  size_t i = at;
  while (i < s.size() &&
         (is_digit(s[i]) || (s[i] == '_' && i > at && is_digit(s[i - 1]) && i + 1 < s.size() && is_digit(s[i + 1]))))
    ++i;
  return i - at;
}

bool equals_ignoring_case(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] >= 'A' && a[i] <= 'Z' ? a[i] - 'A' + 'a' : a[i]) != lower[i]) return false;
  return true;
}

// Python's float() grammar after the sign: digits [. digits] [e [sign] digits], or .digits, or inf/infinity/nan.
bool python_float_body(std::string_view s) {
  if (equals_ignoring_case(s, "inf") || equals_ignoring_case(s, "infinity") || equals_ignoring_case(s, "nan"))
    return true;
  size_t i = digits(s, 0);
  size_t mantissa = i;
  if (i < s.size() && s[i] == '.') {
    const size_t fraction = digits(s, i + 1);
    mantissa += fraction;
    i += 1 + fraction;
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t exponent = digits(s, i);
    if (exponent == 0) return false;
    i += exponent;
  }
  return i == s.size();
}
}  // namespace

std::optional<double> argparse_number(std::string_view value) {
  if (!argparse_accepts(value, ArgparseType::kFloat)) return std::nullopt;
  std::string digits_only;
  for (const char c : value)
    if (c != '_' && !is_space(c)) digits_only += c;
  return std::strtod(digits_only.c_str(), nullptr);
}

bool argparse_accepts(std::string_view value, ArgparseType type) {
  if (type == ArgparseType::kString) return true;
  while (!value.empty() && is_space(value.front())) value.remove_prefix(1);
  while (!value.empty() && is_space(value.back())) value.remove_suffix(1);
  if (!value.empty() && (value[0] == '+' || value[0] == '-')) value.remove_prefix(1);
  if (type == ArgparseType::kInt) return !value.empty() && digits(value, 0) == value.size();
  return python_float_body(value);
}

std::string long_option(std::string_view name) { return std::string(2, kPrefixChar) + std::string(name); }

std::optional<std::string> option_name(std::string_view word) {
  if (!long_prefixed(word)) return std::nullopt;
  return std::string(word.substr(2));
}

std::pair<std::string, std::optional<std::string>> split_attached(const std::string& name) {
  const size_t eq = name.find('=');
  if (eq == std::string::npos) return {name, std::nullopt};
  return {name.substr(0, eq), name.substr(eq + 1)};
}

bool argparse_option_like(std::string_view word) {
  if (word.size() < 2 || word[0] != kPrefixChar || word.find(' ') != std::string_view::npos) return false;
  // argparse's negative-number pattern, ^-\d+$|^-\d*\.\d+$ (its parser has no option that looks like one).
  const std::string_view body = word.substr(1);
  const size_t dot = body.find('.');
  auto all_digits = [](std::string_view s) {
    for (char c : s)
      if (!is_digit(c)) return false;
    return true;
  };
  const bool negative_number =
      dot == std::string_view::npos
          ? all_digits(body)
          : all_digits(body.substr(0, dot)) && dot + 1 < body.size() && all_digits(body.substr(dot + 1));
  return !negative_number;
}

std::optional<OptionValue> option_value(const std::vector<std::string>& command,
                                        std::initializer_list<std::string_view> names, size_t end) {
  std::optional<OptionValue> found;
  for (size_t k = 0; k < command.size() && k < end; ++k) {
    const auto name = option_name(command[k]);
    if (!name) continue;
    auto [option, attached] = split_attached(*name);
    bool wanted = false;
    for (const std::string_view n : names) wanted |= option == n;
    if (!wanted) continue;
    if (attached)
      found = OptionValue{option, *attached};
    else if (k + 1 < command.size() && k + 1 < end)
      found = OptionValue{option, command[k + 1]};
  }
  return found;
}

}  // namespace isoflop::emit
