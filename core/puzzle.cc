#include "core/puzzle.h"

namespace puzzledb {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kSolved:
      return "SOLVED";
    case Outcome::kNotWithinLimit:
      return "NOT_WITHIN_LIMIT";
    case Outcome::kUnsolvable:
      return "UNSOLVABLE";
  }
  return "UNKNOWN";
}

std::string_view SourceName(Source source) {
  return source == Source::kTable ? "TABLE" : "SEARCH";
}

}  // namespace puzzledb
