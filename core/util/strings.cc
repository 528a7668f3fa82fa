#include "core/util/strings.h"

#include <cstdio>

namespace puzzledb {

void strings_internal::Append(std::string* out, double value) {
  char buffer[32];
  const int n = std::snprintf(buffer, sizeof buffer, "%.6g", value);
  out->append(buffer, static_cast<size_t>(n));
}

std::string_view StripWhitespace(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(kSpace);
  return text.substr(begin, end - begin + 1);
}

std::vector<std::string_view> SplitWhitespace(std::string_view text) {
  std::vector<std::string_view> pieces;
  size_t at = 0;
  while (at < text.size()) {
    at = text.find_first_not_of(" \t", at);
    if (at == std::string_view::npos) break;
    size_t end = text.find_first_of(" \t", at);
    if (end == std::string_view::npos) end = text.size();
    pieces.push_back(text.substr(at, end - at));
    at = end;
  }
  return pieces;
}

std::string Thousands(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Megabytes(uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buffer;
}

std::string SecondsText(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f s", seconds);
  return buffer;
}

std::string DecimalString(unsigned __int128 value) {
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace puzzledb
