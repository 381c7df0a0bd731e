// Whether text is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). JSON
// parsers reject anything else; a YAML reader passes stray bytes through into strings, which no JSON writer can
// then encode, so input read as YAML is checked first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace isoflop {

// The offset of the first byte that does not begin or continue a well-formed UTF-8 sequence; none when all do.
inline std::optional<size_t> first_invalid_utf8(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = byte(i);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;   // overlong
      if (c == 0xED) high = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;   // overlong
      if (c == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    if (byte(i + 1) < low || byte(i + 1) > high) return i;
    for (size_t k = 2; k < length; ++k)
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    i += length;
  }
  return std::nullopt;
}

// The text with each byte that begins no well-formed sequence replaced by U+FFFD (a file name in Latin-1 written
// into a JSON or XML report, which would otherwise be unreadable to its reader).
inline std::string with_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (const auto bad = first_invalid_utf8(text)) {
    out.append(text.substr(0, *bad));
    out += "\xEF\xBF\xBD";
    text.remove_prefix(*bad + 1);
  }
  out.append(text);
  return out;
}

}  // namespace isoflop
