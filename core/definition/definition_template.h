// A definition with parameters (docs/PUZZLES.md, "Definitions with parameters"): a file
// that declares parameters, gives an example of their values, and writes its moves with
// loops and expressions over them, so that one file stands for a family of puzzles (the
// twelve knobs, one puzzle per wiring). Each set of values makes a plain definition: the
// file with its loops unrolled and its expressions replaced by their values, read by
// ReadDefinition. Untrusted input, as a definition is: every refusal names the file, the
// line (and the loop variables' values there) and the rule; the limits bound what one file
// and one set of values may ask for.
#ifndef PUZZLEDB_CORE_DEFINITION_DEFINITION_TEMPLATE_H_
#define PUZZLEDB_CORE_DEFINITION_DEFINITION_TEMPLATE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/definition.h"
#include "core/definition/read_definition.h"

namespace puzzledb {

// "Parameter NAME D1 D2 ... LOW..HIGH": a table of values (none of Dk: one value), each a
// whole number from LOW to HIGH; read in expressions as NAME[i][j] (indices from 1).
struct TemplateParameter {
  std::string name;
  std::vector<int> dims;
  int low = 0;
  int high = 0;
  int line = 0;
  size_t offset = 0;  // of its first value in a set of values
  size_t count = 1;
};

struct TemplateLimits {
  size_t max_values = 4096;         // of every parameter together
  uint64_t max_steps = 1u << 22;    // lines written, loop turns and inline values, together
  int max_nesting = 16;             // For and When blocks inside one another
  int max_expression_depth = 64;    // parentheses, operators and indices inside one another
};

class DefinitionTemplate {
 public:
  // True if `text` declares a parameter (a line that starts with the word Parameter).
  static bool Declares(std::string_view text);

  // Reads the file's parameters, its example and the structure of its loops, and checks
  // that the example's values make a definition (INVALID_ARGUMENT naming the file, the line
  // and the rule).
  static absl::StatusOr<DefinitionTemplate> Read(std::string_view text, std::string_view file,
                                                 const DefinitionLimits& limits = {},
                                                 const TemplateLimits& template_limits = {});

  const std::vector<TemplateParameter>& parameters() const { return parameters_; }
  size_t value_count() const { return value_count_; }
  const std::vector<int>& example() const { return example_; }

  // A set of values as text gives it: whole numbers separated by white space, every
  // parameter's in the order declared, each table row by row. INVALID_ARGUMENT naming the
  // value (its parameter and indices) and its range.
  absl::StatusOr<std::vector<int>> ParseValues(std::string_view text) const;
  // The same, checked (INVALID_ARGUMENT as ParseValues).
  absl::Status CheckValues(std::span<const int> values) const;
  // As ParseValues reads them: "10 8 12 7 3 4 ...".
  static std::string FormatValues(std::span<const int> values);
  // For people: "W 10 8 12 7 | 3 4 4 8 | ..." (each parameter by name, a table's rows
  // separated by '|').
  std::string Describe(std::span<const int> values) const;

  // The definition these values make (INVALID_ARGUMENT: a value out of range, a Require
  // that fails, an expression that cannot be evaluated, or what ReadDefinition refuses in
  // the text made, each naming the template's line and the loop variables there).
  // `line_names` (if not null): what names each line of the text made (as Expand), which
  // the definition's line numbers count.
  absl::StatusOr<Definition> Instantiate(std::span<const int> values,
                                         std::vector<std::string>* line_names = nullptr) const;
  // The text these values make, and for each of its lines (if not null) what names it in
  // messages: the template's line and the loop variables' values ("14 (k=3, s=2)").
  absl::StatusOr<std::string> Expand(std::span<const int> values,
                                     std::vector<std::string>* line_names = nullptr) const;

 private:
  enum class Kind { kText, kFor, kEndFor, kWhen, kEndWhen, kRequire };
  struct Line {
    int number = 0;
    Kind kind = Kind::kText;
    std::string text;  // kText: the line; kFor: "VAR A..B"; kWhen, kRequire: what follows the word
    size_t match = 0;  // kFor, kWhen: the index of its EndFor, EndWhen
  };
  class Expander;

  std::string file_;
  DefinitionLimits limits_;
  TemplateLimits template_limits_;
  std::vector<TemplateParameter> parameters_;
  size_t value_count_ = 0;
  std::vector<int> example_;
  std::vector<Line> lines_;  // the body: every line but the parameters and the example
};

// The definition of a file with or without parameters: with them, the one its example's
// values make (INVALID_ARGUMENT as ReadDefinition and DefinitionTemplate::Read).
absl::StatusOr<Definition> ReadAnyDefinition(std::string_view text, std::string_view file,
                                             const DefinitionLimits& limits = {},
                                             const TemplateLimits& template_limits = {});

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINITION_DEFINITION_TEMPLATE_H_
