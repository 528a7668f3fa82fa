// Small string helpers on std::string_view. (Debian's Abseil is built with its own
// absl::string_view, which does not mix with std::string_view, so the project uses
// Abseil's Status and containers but not its string functions.)
#ifndef PUZZLEDB_CORE_UTIL_STRINGS_H_
#define PUZZLEDB_CORE_UTIL_STRINGS_H_

#include <charconv>
#include <concepts>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace puzzledb {

namespace strings_internal {
inline void Append(std::string* out, std::string_view s) { out->append(s); }
inline void Append(std::string* out, const char* s) { out->append(s); }
inline void Append(std::string* out, const std::string& s) { out->append(s); }
inline void Append(std::string* out, char c) { out->push_back(c); }
template <std::integral T>
  requires(!std::same_as<T, char> && !std::same_as<T, bool>)
void Append(std::string* out, T value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out->append(buffer, result.ptr);
}
void Append(std::string* out, double value);
}  // namespace strings_internal

// Concatenates strings, characters and numbers.
template <class... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (strings_internal::Append(&out, args), ...);
  return out;
}

// A status's message as a std::string_view.
inline std::string_view Message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

// A 128-bit unsigned number in decimal.
std::string DecimalString(unsigned __int128 value);

// Figures for people: 67603900 -> "67,603,900"; bytes as "12.3 MB"; seconds as "1.25 s".
std::string Thousands(uint64_t n);
std::string Megabytes(uint64_t bytes);
std::string SecondsText(double seconds);
// The seconds since `start` (what SecondsText prints of a piece of work).
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string_view StripWhitespace(std::string_view text);
// Splits on runs of spaces and tabs; no empty pieces.
std::vector<std::string_view> SplitWhitespace(std::string_view text);

template <class Range>
std::string Join(const Range& items, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(separator);
    first = false;
    strings_internal::Append(&out, item);
  }
  return out;
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_STRINGS_H_
