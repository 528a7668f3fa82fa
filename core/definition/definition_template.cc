#include "core/definition/definition_template.h"

#include <charconv>
#include <utility>

#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {

namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

bool IsName(std::string_view word) {
  if (word.empty() || word.size() > 32 || !IsNameStart(word[0])) return false;
  for (char c : word) {
    if (!IsNameChar(c)) return false;
  }
  return word != "for";
}

// A whole number of at most 9 digits (and a sign), or false.
bool ParseSmall(std::string_view word, int* value) {
  if (word.empty() || word.size() > 10) return false;
  const char* end = word.data() + word.size();
  const auto result = std::from_chars(word.data(), end, *value);
  return result.ec == std::errc() && result.ptr == end && (word[0] != '+');
}

// What follows the first word of a line, without the white space around it.
std::string_view AfterWord(std::string_view line) {
  line = StripWhitespace(line);
  size_t end = 0;
  while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
  return StripWhitespace(line.substr(end));
}

std::string Ordinal(size_t n) {
  if (n == 1) return "1st";
  if (n == 2) return "2nd";
  if (n == 3) return "3rd";
  return Cat(n, "th");
}

}  // namespace

// Unrolls the body for one set of values: loops, conditions, requirements and expressions.
class DefinitionTemplate::Expander {
 public:
  Expander(const DefinitionTemplate& t, std::span<const int> values, std::vector<std::string>* names)
      : t_(t), values_(values), names_(names) {}

  absl::Status Run(size_t begin, size_t end);
  std::string TakeText() { return std::move(out_); }

 private:
  // An expression's reading: its text, where the reader is, whether values count (the
  // branch not taken of ?:, && and || is read for its form alone), how deep it is.
  struct Reading {
    std::string_view text;
    size_t at = 0;
    int depth = 0;
  };

  absl::Status Error(int number, std::string_view what) const {
    return absl::InvalidArgumentError(Cat(t_.file_, ":", Where(number), ": ", what));
  }
  std::string Where(int number) const {
    if (vars_.empty()) return Cat(number);
    std::vector<std::string> bound;
    for (const auto& [name, value] : vars_) bound.push_back(Cat(name, "=", value));
    return Cat(number, " (", Join(bound, ", "), ")");
  }
  absl::Status Step(int number) {
    if (++steps_ > t_.template_limits_.max_steps) {
      return Error(number, Cat("the file asks for more than ", t_.template_limits_.max_steps,
                               " lines, loop turns and values in all; a definition with parameters "
                               "may ask for at most that many"));
    }
    return absl::OkStatus();
  }

  // The whole of `text` as one expression.
  absl::StatusOr<int64_t> Evaluate(std::string_view text, int number);
  // "A..B" (a loop's range).
  absl::Status EvaluateRange(std::string_view text, int number, int64_t* low, int64_t* high);
  // A line with each {EXPR} (and {for VAR A..B: EXPR}) replaced by its value(s).
  absl::StatusOr<std::string> Substitute(std::string_view text, int number);

  // The grammar, lowest precedence first; `live`: values count (else only the form).
  absl::Status Expression(Reading& r, bool live, int64_t* value);
  absl::Status Or(Reading& r, bool live, int64_t* value);
  absl::Status And(Reading& r, bool live, int64_t* value);
  absl::Status Compare(Reading& r, bool live, int64_t* value);
  absl::Status Sum(Reading& r, bool live, int64_t* value);
  absl::Status Product(Reading& r, bool live, int64_t* value);
  absl::Status Unary(Reading& r, bool live, int64_t* value);
  absl::Status Primary(Reading& r, bool live, int64_t* value);

  static void Skip(Reading& r) {
    while (r.at < r.text.size() && (r.text[r.at] == ' ' || r.text[r.at] == '\t')) ++r.at;
  }
  // Consumes `op` if it comes next (and not as the start of a longer operator).
  static bool Take(Reading& r, std::string_view op) {
    Skip(r);
    if (r.text.substr(r.at, op.size()) != op) return false;
    if (op.size() == 1 && r.at + 1 < r.text.size()) {
      const char next = r.text[r.at + 1];
      if ((op == "<" || op == ">" || op == "!") && next == '=') return false;
      if (op == "." && next == '.') return false;
    }
    r.at += op.size();
    return true;
  }
  absl::Status Bad(const Reading& r, std::string_view what) const {
    return absl::InvalidArgumentError(Cat("{", r.text, "}: ", what));
  }

  const DefinitionTemplate& t_;
  std::span<const int> values_;
  std::vector<std::string>* names_;
  std::vector<std::pair<std::string, int64_t>> vars_;
  uint64_t steps_ = 0;
  std::string out_;
};

absl::Status DefinitionTemplate::Expander::Run(size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    const Line& line = t_.lines_[i];
    switch (line.kind) {
      case Kind::kText: {
        if (absl::Status s = Step(line.number); !s.ok()) return s;
        auto text = Substitute(line.text, line.number);
        if (!text.ok()) return text.status();
        out_ += *text;
        out_ += '\n';
        if (names_ != nullptr) names_->push_back(Where(line.number));
        if (out_.size() > t_.limits_.max_file_bytes) {
          return Error(line.number, Cat("the definition these values make passes ", t_.limits_.max_file_bytes,
                                        " bytes, the most a definition may take"));
        }
        break;
      }
      case Kind::kFor: {
        const std::string_view spec = line.text;
        const size_t space = spec.find_first_of(" \t");
        const std::string var(spec.substr(0, space));
        int64_t low = 0, high = 0;
        if (absl::Status s = EvaluateRange(space == std::string_view::npos ? "" : spec.substr(space), line.number, &low, &high);
            !s.ok()) {
          return s;
        }
        for (int64_t v = low; v <= high; ++v) {
          if (absl::Status s = Step(line.number); !s.ok()) return s;
          vars_.emplace_back(var, v);
          absl::Status s = Run(i + 1, line.match);
          vars_.pop_back();
          if (!s.ok()) return s;
        }
        i = line.match;
        break;
      }
      case Kind::kWhen: {
        if (absl::Status s = Step(line.number); !s.ok()) return s;
        auto holds = Evaluate(line.text, line.number);
        if (!holds.ok()) return holds.status();
        if (*holds != 0) {
          if (absl::Status s = Run(i + 1, line.match); !s.ok()) return s;
        }
        i = line.match;
        break;
      }
      case Kind::kRequire: {
        if (absl::Status s = Step(line.number); !s.ok()) return s;
        const std::string_view spec = line.text;
        const size_t close = spec.find('}');
        auto holds = Evaluate(spec.substr(1, close - 1), line.number);
        if (!holds.ok()) return holds.status();
        if (*holds == 0) {
          auto message = Substitute(StripWhitespace(spec.substr(close + 1)), line.number);
          if (!message.ok()) return message.status();
          return Error(line.number, message->empty() ? Cat("Require {", spec.substr(1, close - 1), "} fails for these values")
                                                     : *message);
        }
        break;
      }
      case Kind::kEndFor:
      case Kind::kEndWhen:
        break;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> DefinitionTemplate::Expander::Evaluate(std::string_view text, int number) {
  Reading r{text};
  int64_t value = 0;
  absl::Status s = Expression(r, true, &value);
  Skip(r);
  if (s.ok() && r.at < r.text.size()) s = Bad(r, Cat("unexpected ", QuoteInput(r.text.substr(r.at)), " after the expression"));
  if (!s.ok()) return Error(number, Message(s));
  return value;
}

absl::Status DefinitionTemplate::Expander::EvaluateRange(std::string_view text, int number, int64_t* low,
                                                         int64_t* high) {
  text = StripWhitespace(text);
  Reading r{text};
  absl::Status s = Expression(r, true, low);
  if (s.ok() && !Take(r, "..")) s = Bad(r, "want a range FROM..TO (For k 1..12)");
  if (s.ok()) s = Expression(r, true, high);
  Skip(r);
  if (s.ok() && r.at < r.text.size()) s = Bad(r, Cat("unexpected ", QuoteInput(r.text.substr(r.at)), " after the range"));
  if (!s.ok()) return Error(number, Message(s));
  return absl::OkStatus();
}

absl::StatusOr<std::string> DefinitionTemplate::Expander::Substitute(std::string_view text, int number) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find_first_of("{}", at);
    if (open == std::string_view::npos) {
      out.append(text.substr(at));
      break;
    }
    if (text[open] == '}') return Error(number, "a '}' with no '{' before it");
    out.append(text.substr(at, open - at));
    const size_t close = text.find_first_of("{}", open + 1);
    if (close == std::string_view::npos || text[close] == '{') {
      return Error(number, "a '{' with no '}' after it (an expression is written {EXPR})");
    }
    const std::string_view inside = StripWhitespace(text.substr(open + 1, close - open - 1));
    at = close + 1;
    if (inside.substr(0, 3) == "for" && inside.size() > 3 && (inside[3] == ' ' || inside[3] == '\t')) {
      // {for VAR A..B: EXPR}: the values of EXPR for VAR from A to B, separated by spaces.
      std::string_view rest = StripWhitespace(inside.substr(3));
      size_t name_end = 0;
      while (name_end < rest.size() && IsNameChar(rest[name_end])) ++name_end;
      const std::string var(rest.substr(0, name_end));
      const size_t colon = rest.find(':', name_end);
      if (!IsName(var) || colon == std::string_view::npos) {
        return Error(number, Cat("{", inside, "}: want {for VAR FROM..TO: EXPR}"));
      }
      int64_t low = 0, high = 0;
      if (absl::Status s = EvaluateRange(rest.substr(name_end, colon - name_end), number, &low, &high); !s.ok()) {
        return s;
      }
      const std::string_view body = rest.substr(colon + 1);
      for (int64_t v = low; v <= high; ++v) {
        if (absl::Status s = Step(number); !s.ok()) return s;
        vars_.emplace_back(var, v);
        auto value = Evaluate(body, number);
        vars_.pop_back();
        if (!value.ok()) return value.status();
        if (v > low) out += ' ';
        out += std::to_string(*value);
        if (out.size() > t_.limits_.max_file_bytes) {
          return Error(number, Cat("the line passes ", t_.limits_.max_file_bytes, " bytes"));
        }
      }
      continue;
    }
    auto value = Evaluate(inside, number);
    if (!value.ok()) return value.status();
    out += std::to_string(*value);
  }
  return out;
}

absl::Status DefinitionTemplate::Expander::Expression(Reading& r, bool live, int64_t* value) {
  if (++r.depth > t_.template_limits_.max_expression_depth) {
    return Bad(r, Cat("nested more than ", t_.template_limits_.max_expression_depth, " deep"));
  }
  absl::Status s = Or(r, live, value);
  if (s.ok() && Take(r, "?")) {
    int64_t yes = 0, no = 0;
    s = Expression(r, live && *value != 0, &yes);
    if (s.ok() && !Take(r, ":")) s = Bad(r, "a '?' with no ':' after it (COND ? A : B)");
    if (s.ok()) s = Expression(r, live && *value == 0, &no);
    if (s.ok()) *value = *value != 0 ? yes : no;
  }
  --r.depth;
  return s;
}

absl::Status DefinitionTemplate::Expander::Or(Reading& r, bool live, int64_t* value) {
  absl::Status s = And(r, live, value);
  while (s.ok() && Take(r, "||")) {
    int64_t right = 0;
    s = And(r, live && *value == 0, &right);
    *value = (*value != 0 || right != 0) ? 1 : 0;
  }
  return s;
}

absl::Status DefinitionTemplate::Expander::And(Reading& r, bool live, int64_t* value) {
  absl::Status s = Compare(r, live, value);
  while (s.ok() && Take(r, "&&")) {
    int64_t right = 0;
    s = Compare(r, live && *value != 0, &right);
    *value = (*value != 0 && right != 0) ? 1 : 0;
  }
  return s;
}

absl::Status DefinitionTemplate::Expander::Compare(Reading& r, bool live, int64_t* value) {
  absl::Status s = Sum(r, live, value);
  if (!s.ok()) return s;
  static constexpr std::string_view kOps[] = {"==", "!=", "<=", ">=", "<", ">"};
  for (const std::string_view op : kOps) {
    if (!Take(r, op)) continue;
    int64_t right = 0;
    if (s = Sum(r, live, &right); !s.ok()) return s;
    const int64_t left = *value;
    *value = op == "==" ? left == right : op == "!=" ? left != right : op == "<=" ? left <= right
           : op == ">=" ? left >= right : op == "<" ? left < right : left > right;
    break;
  }
  return s;
}

absl::Status DefinitionTemplate::Expander::Sum(Reading& r, bool live, int64_t* value) {
  absl::Status s = Product(r, live, value);
  while (s.ok()) {
    const bool plus = Take(r, "+");
    if (!plus && !Take(r, "-")) break;
    int64_t right = 0;
    if (s = Product(r, live, &right); !s.ok()) break;
    int64_t result = 0;
    if (plus ? __builtin_add_overflow(*value, right, &result) : __builtin_sub_overflow(*value, right, &result)) {
      if (live) return Bad(r, "a value past 64 bits");
      result = 0;
    }
    *value = result;
  }
  return s;
}

absl::Status DefinitionTemplate::Expander::Product(Reading& r, bool live, int64_t* value) {
  absl::Status s = Unary(r, live, value);
  while (s.ok()) {
    char op = 0;
    if (Take(r, "*")) op = '*';
    else if (Take(r, "/")) op = '/';
    else if (Take(r, "%")) op = '%';
    else break;
    int64_t right = 0;
    if (s = Unary(r, live, &right); !s.ok()) break;
    int64_t result = 0;
    if (op == '*') {
      if (__builtin_mul_overflow(*value, right, &result)) {
        if (live) return Bad(r, "a value past 64 bits");
        result = 0;
      }
    } else if (right == 0 || (*value == INT64_MIN && right == -1)) {
      if (live) return Bad(r, right == 0 ? "a division by zero" : "a value past 64 bits");
      result = 0;
    } else {
      // Floored, so that k % 4 is 0..3 for a negative k too.
      int64_t quotient = *value / right, rest = *value % right;
      if (rest != 0 && ((rest < 0) != (right < 0))) {
        quotient -= 1;
        rest += right;
      }
      result = op == '/' ? quotient : rest;
    }
    *value = result;
  }
  return s;
}

absl::Status DefinitionTemplate::Expander::Unary(Reading& r, bool live, int64_t* value) {
  if (Take(r, "-") || Take(r, "!")) {
    const char op = r.text[r.at - 1];
    if (++r.depth > t_.template_limits_.max_expression_depth) {
      return Bad(r, Cat("nested more than ", t_.template_limits_.max_expression_depth, " deep"));
    }
    absl::Status s = Unary(r, live, value);
    --r.depth;
    if (!s.ok()) return s;
    if (op == '!') {
      *value = *value == 0 ? 1 : 0;
    } else if (*value == INT64_MIN) {
      if (live) return Bad(r, "a value past 64 bits");
      *value = 0;
    } else {
      *value = -*value;
    }
    return absl::OkStatus();
  }
  return Primary(r, live, value);
}

absl::Status DefinitionTemplate::Expander::Primary(Reading& r, bool live, int64_t* value) {
  Skip(r);
  if (Take(r, "(")) {
    absl::Status s = Expression(r, live, value);
    if (s.ok() && !Take(r, ")")) s = Bad(r, "a '(' with no ')' after it");
    return s;
  }
  const std::string_view text = r.text;
  if (r.at < text.size() && text[r.at] >= '0' && text[r.at] <= '9') {
    const size_t start = r.at;
    while (r.at < text.size() && text[r.at] >= '0' && text[r.at] <= '9') ++r.at;
    if (r.at - start > 18) return Bad(r, Cat("the number ", text.substr(start, r.at - start), " has more than 18 digits"));
    *value = 0;
    for (size_t i = start; i < r.at; ++i) *value = *value * 10 + (text[i] - '0');
    return absl::OkStatus();
  }
  if (r.at >= text.size() || !IsNameStart(text[r.at])) {
    return Bad(r, r.at >= text.size() ? std::string("an expression ends where a value is wanted")
                                      : Cat("want a number, a name or '(' at ", QuoteInput(text.substr(r.at))));
  }
  const size_t start = r.at;
  while (r.at < text.size() && IsNameChar(text[r.at])) ++r.at;
  const std::string_view name = text.substr(start, r.at - start);
  for (size_t v = vars_.size(); v-- > 0;) {
    if (vars_[v].first == name) {
      *value = vars_[v].second;
      return absl::OkStatus();
    }
  }
  const TemplateParameter* p = nullptr;
  for (const TemplateParameter& q : t_.parameters_) {
    if (q.name == name) p = &q;
  }
  if (p == nullptr) {
    std::vector<std::string> known;
    for (const auto& [var, v] : vars_) known.push_back(var);
    for (const TemplateParameter& q : t_.parameters_) known.push_back(q.name);
    return Bad(r, Cat("no loop variable or parameter is named ", name, " here (there are: ", Join(known, ", "), ")"));
  }
  size_t flat = 0;
  for (size_t d = 0; d < p->dims.size(); ++d) {
    if (!Take(r, "[")) {
      return Bad(r, Cat(p->name, " is a table of ", Join(p->dims, " x "), ": give ", p->dims.size(),
                        p->dims.size() == 1 ? " index" : " indices", " (", p->name, "[i]",
                        p->dims.size() > 1 ? "[j]" : "", "), each from 1"));
    }
    int64_t index = 0;
    if (++r.depth > t_.template_limits_.max_expression_depth) {
      return Bad(r, Cat("nested more than ", t_.template_limits_.max_expression_depth, " deep"));
    }
    absl::Status s = Expression(r, live, &index);
    --r.depth;
    if (!s.ok()) return s;
    if (!Take(r, "]")) return Bad(r, "a '[' with no ']' after it");
    if (live && (index < 1 || index > p->dims[d])) {
      return Bad(r, Cat(p->name, "'s ", Ordinal(d + 1), " index is ", index, "; it runs from 1 to ", p->dims[d]));
    }
    flat = flat * static_cast<size_t>(p->dims[d]) + static_cast<size_t>(live ? index - 1 : 0);
  }
  if (Take(r, "[")) return Bad(r, Cat(p->name, " takes ", p->dims.size(), p->dims.size() == 1 ? " index" : " indices"));
  *value = values_[p->offset + flat];
  return absl::OkStatus();
}

// ---- the file

bool DefinitionTemplate::Declares(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = StripWhitespace(text.substr(start, end - start));
    if (line.substr(0, 9) == "Parameter" && (line.size() == 9 || line[9] == ' ' || line[9] == '\t')) return true;
    start = end + 1;
  }
  return false;
}

absl::StatusOr<DefinitionTemplate> DefinitionTemplate::Read(std::string_view text, std::string_view file,
                                                            const DefinitionLimits& limits,
                                                            const TemplateLimits& template_limits) {
  auto error = [&file](int line, std::string_view what) {
    return absl::InvalidArgumentError(Cat(file, ":", line, ": ", what));
  };
  if (text.size() > limits.max_file_bytes) {
    return absl::InvalidArgumentError(Cat(file, ": ", text.size(), " bytes, more than the ", limits.max_file_bytes,
                                          " a definition may take"));
  }
  auto lines = SplitDefinitionLines(text, file);
  if (!lines.ok()) return lines.status();
  DefinitionTemplate t;
  t.file_ = std::string(file);
  t.limits_ = limits;
  t.template_limits_ = template_limits;
  std::vector<size_t> open;  // the For and When lines not closed yet, by index in t.lines_
  std::string example;
  int example_line = 0;
  bool in_example = false;
  for (const DefinitionLine& raw : *lines) {
    const std::string_view word = raw.tokens[0];
    if (in_example) {
      if (word == "End" && raw.tokens.size() == 1) {
        in_example = false;
      } else {
        example += Cat(raw.text, " ");
      }
      continue;
    }
    if (word == "Parameter") {
      // Parameter NAME D1 ... LOW..HIGH
      if (!open.empty()) return error(raw.number, "Parameter: inside a For or When block");
      if (raw.tokens.size() < 3) return error(raw.number, "want Parameter NAME [SIZE ...] LOW..HIGH (Parameter W 12 4 1..12)");
      TemplateParameter p;
      p.name = std::string(raw.tokens[1]);
      p.line = raw.number;
      if (!IsName(p.name)) {
        return error(raw.number, Cat("Parameter: the name ", QuoteInput(p.name),
                                     " is not 1 to 32 letters, digits and _, starting with a letter or _"));
      }
      for (const TemplateParameter& q : t.parameters_) {
        if (q.name == p.name) return error(raw.number, Cat("Parameter ", p.name, ": given again (first at line ", q.line, ")"));
      }
      for (size_t w = 2; w + 1 < raw.tokens.size(); ++w) {
        int dim = 0;
        if (!ParseSmall(raw.tokens[w], &dim) || dim < 1 || dim > static_cast<int>(template_limits.max_values)) {
          return error(raw.number, Cat("Parameter ", p.name, ": the size ", QuoteInput(raw.tokens[w]),
                                       " is not a whole number from 1 to ", template_limits.max_values));
        }
        p.dims.push_back(dim);
        p.count *= static_cast<size_t>(dim);
        if (p.count > template_limits.max_values) break;
      }
      const std::string_view range = raw.tokens.back();
      const size_t dots = range.find("..");
      if (dots == std::string_view::npos || !ParseSmall(range.substr(0, dots), &p.low) ||
          !ParseSmall(range.substr(dots + 2), &p.high) || p.low > p.high) {
        return error(raw.number, Cat("Parameter ", p.name, ": want the range of its values last, LOW..HIGH "
                                     "with LOW at most HIGH, whole numbers of at most 9 digits (1..12); got ",
                                     QuoteInput(range)));
      }
      p.offset = t.value_count_;
      t.value_count_ += p.count;
      if (p.count > template_limits.max_values || t.value_count_ > template_limits.max_values) {
        return error(raw.number, Cat("Parameter ", p.name, ": more than ", template_limits.max_values,
                                     " values in all, the most a definition may have"));
      }
      t.parameters_.push_back(std::move(p));
      continue;
    }
    if (word == "Example") {
      if (raw.tokens.size() != 1) return error(raw.number, "Example: the values go on the lines that follow, up to End");
      if (!open.empty()) return error(raw.number, "Example: inside a For or When block");
      if (example_line != 0) return error(raw.number, Cat("Example: given again (first at line ", example_line, ")"));
      example_line = raw.number;
      in_example = true;
      continue;
    }
    Line line;
    line.number = raw.number;
    const std::string_view rest = AfterWord(raw.text);
    if (word == "For") {
      // For VAR FROM..TO
      if (raw.tokens.size() < 3 || !IsName(raw.tokens[1])) {
        return error(raw.number, "want For VAR FROM..TO (For k 1..12), VAR a name of letters, digits and _");
      }
      for (const TemplateParameter& p : t.parameters_) {
        if (p.name == raw.tokens[1]) return error(raw.number, Cat("For: ", p.name, " is a parameter's name"));
      }
      line.kind = Kind::kFor;
      line.text = std::string(rest);
    } else if (word == "When") {
      if (rest.empty()) return error(raw.number, "want When EXPR (When k != 3)");
      line.kind = Kind::kWhen;
      line.text = std::string(rest);
    } else if (word == "Require") {
      if (rest.empty() || rest[0] != '{' || rest.find('}') == std::string_view::npos) {
        return error(raw.number, "want Require {EXPR} MESSAGE (Require {W[k] != k} knob {k} turns itself)");
      }
      line.kind = Kind::kRequire;
      line.text = std::string(rest);
    } else if (word == "EndFor" || word == "EndWhen") {
      const bool for_end = word == "EndFor";
      if (raw.tokens.size() != 1) return error(raw.number, Cat(word, ": nothing else on its line"));
      if (open.empty() || (t.lines_[open.back()].kind == Kind::kFor) != for_end) {
        return error(raw.number, open.empty() ? Cat(word, " with no ", for_end ? "For" : "When", " open")
                                              : Cat(word, " where the ", for_end ? "When" : "For", " of line ",
                                                    t.lines_[open.back()].number, " is open"));
      }
      line.kind = for_end ? Kind::kEndFor : Kind::kEndWhen;
      t.lines_[open.back()].match = t.lines_.size();
      open.pop_back();
    } else {
      line.kind = Kind::kText;
      std::string_view text = raw.text;  // without its comment, nor the blanks before it
      while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
      line.text = std::string(text);
    }
    if (line.kind == Kind::kFor || line.kind == Kind::kWhen) {
      if (static_cast<int>(open.size()) >= template_limits.max_nesting) {
        return error(raw.number, Cat(word, ": more than ", template_limits.max_nesting, " For and When blocks inside one another"));
      }
      open.push_back(t.lines_.size());
    }
    t.lines_.push_back(std::move(line));
  }
  if (t.parameters_.empty()) return absl::InvalidArgumentError(Cat(file, ": declares no Parameter"));
  if (in_example) return error(example_line, "Example: no End after its values");
  if (!open.empty()) {
    const Line& line = t.lines_[open.back()];
    return error(line.number, Cat(line.kind == Kind::kFor ? "For" : "When", ": no ",
                                  line.kind == Kind::kFor ? "EndFor" : "EndWhen", " closes it"));
  }
  if (example_line == 0) {
    return absl::InvalidArgumentError(Cat(file, ": no Example: give the values of a puzzle of the family (",
                                          t.value_count_, " numbers) in an Example block, ended by End"));
  }
  auto values = t.ParseValues(example);
  if (!values.ok()) return error(example_line, Cat("Example: ", Message(values.status())));
  t.example_ = *std::move(values);
  if (auto made = t.Instantiate(t.example_); !made.ok()) return made.status();
  return t;
}

absl::StatusOr<std::vector<int>> DefinitionTemplate::ParseValues(std::string_view text) const {
  const std::vector<std::string_view> words = SplitWhitespace(text);
  if (words.size() != value_count_) {
    std::vector<std::string> wanted;
    for (const TemplateParameter& p : parameters_) {
      wanted.push_back(p.dims.empty() ? Cat(p.name, " 1") : Cat(p.name, " ", Join(p.dims, " x ")));
    }
    return absl::InvalidArgumentError(Cat(words.size(), " values, want ", value_count_, " (", Join(wanted, ", "), ")"));
  }
  std::vector<int> values(words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    if (!ParseSmall(words[i], &values[i])) {
      return absl::InvalidArgumentError(Cat("value ", i + 1, " is ", QuoteInput(words[i]), ", not a whole number"));
    }
  }
  if (absl::Status s = CheckValues(values); !s.ok()) return s;
  return values;
}

absl::Status DefinitionTemplate::CheckValues(std::span<const int> values) const {
  if (values.size() != value_count_) {
    return absl::InvalidArgumentError(Cat(values.size(), " values, want ", value_count_));
  }
  for (const TemplateParameter& p : parameters_) {
    for (size_t k = 0; k < p.count; ++k) {
      const int v = values[p.offset + k];
      if (v >= p.low && v <= p.high) continue;
      std::string where = p.name;
      std::vector<int> index(p.dims.size());
      size_t rest = k;
      for (size_t d = p.dims.size(); d-- > 0;) {
        index[d] = static_cast<int>(rest % static_cast<size_t>(p.dims[d])) + 1;
        rest /= static_cast<size_t>(p.dims[d]);
      }
      for (const int i : index) where += Cat("[", i, "]");
      return absl::InvalidArgumentError(Cat("value ", p.offset + k + 1, " (", where, ") is ", v, "; ", p.name,
                                            "'s values run from ", p.low, " to ", p.high));
    }
  }
  return absl::OkStatus();
}

std::string DefinitionTemplate::FormatValues(std::span<const int> values) { return Join(values, " "); }

std::string DefinitionTemplate::Describe(std::span<const int> values) const {
  std::vector<std::string> parts;
  for (const TemplateParameter& p : parameters_) {
    if (p.offset + p.count > values.size()) break;
    const size_t row = p.dims.size() > 1 ? p.count / static_cast<size_t>(p.dims[0]) : p.count;
    std::vector<std::string> rows;
    for (size_t at = 0; at < p.count; at += row) rows.push_back(Join(values.subspan(p.offset + at, row), " "));
    parts.push_back(Cat(p.name, " ", Join(rows, " | ")));
  }
  return Join(parts, "; ");
}

absl::StatusOr<std::string> DefinitionTemplate::Expand(std::span<const int> values,
                                                       std::vector<std::string>* line_names) const {
  if (absl::Status s = CheckValues(values); !s.ok()) return absl::InvalidArgumentError(Cat(file_, ": ", Message(s)));
  Expander expander(*this, values, line_names);
  if (absl::Status s = expander.Run(0, lines_.size()); !s.ok()) return s;
  return expander.TakeText();
}

absl::StatusOr<Definition> DefinitionTemplate::Instantiate(std::span<const int> values,
                                                          std::vector<std::string>* line_names) const {
  std::vector<std::string> names;
  auto text = Expand(values, &names);
  if (!text.ok()) return text.status();
  auto read = ReadDefinition(*text, file_, limits_, names);
  if (read.ok() && line_names != nullptr) *line_names = std::move(names);
  return read;
}

absl::StatusOr<Definition> ReadAnyDefinition(std::string_view text, std::string_view file,
                                             const DefinitionLimits& limits, const TemplateLimits& template_limits) {
  if (!DefinitionTemplate::Declares(text)) return ReadDefinition(text, file, limits);
  auto t = DefinitionTemplate::Read(text, file, limits, template_limits);
  if (!t.ok()) return t.status();
  return t->Instantiate(t->example());
}

}  // namespace puzzledb
