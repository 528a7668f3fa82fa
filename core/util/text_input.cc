#include "core/util/text_input.h"

#include "core/util/strings.h"


namespace puzzledb {

InputLines::InputLines(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines_.push_back(line);
    start = end + 1;
  }
}

int InputLines::SkipBlank(int from) const {
  while (from <= count() && IsBlank(line(from))) ++from;
  return from;
}

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

absl::StatusOr<std::vector<uint32_t>> ParseNumbers(std::string_view line) {
  std::vector<uint32_t> numbers;
  for (std::string_view token : SplitWhitespace(line)) {
    uint64_t value = 0;
    for (char c : token) {
      if (c < '0' || c > '9') {
        return absl::InvalidArgumentError(
            Cat(QuoteInput(token), " is not a whole number"));
      }
      value = value * 10 + static_cast<uint64_t>(c - '0');
      if (value >= 1000000000) {
        return absl::InvalidArgumentError(Cat(QuoteInput(token), " is too large"));
      }
    }
    numbers.push_back(static_cast<uint32_t>(value));
  }
  return numbers;
}

absl::Status InputError(int case_number, int line, std::string_view what) {
  if (case_number > 0) {
    return absl::InvalidArgumentError(Cat("case ", case_number, ", line ", line, ": ", what));
  }
  return absl::InvalidArgumentError(Cat("line ", line, ": ", what));
}

std::string QuoteInput(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  size_t shown = 0;
  for (char c : text) {
    if (shown == kMaxShown) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
    ++shown;
  }
  out += "'";
  return out;
}

}  // namespace puzzledb
