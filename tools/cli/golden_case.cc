#include "tools/cli/golden_case.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string_view>

#include "fmt/format.h"
#include "re2/re2.h"
#include "tools/cli/filecheck.h"
#include "tools/cli/filecheck_source.h"

namespace carve::cli {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

namespace {

std::string TrimRight(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return TrimRight(s.substr(b));
}

// Splits a pipeline stage into words, honouring '...' and "..." quotes.
std::vector<std::string> SplitWords(const std::string& command) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : command) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

// Splits a RUN command at '|' outside quotes. `shell` receives the first
// other shell operator found outside quotes (`>`, `<`, `;`, `&`), which
// carve test does not run.
std::vector<std::string> SplitPipeline(const std::string& run, std::string& shell,
                                       bool& open_quote) {
  std::vector<std::string> stages;
  std::string cur;
  char quote = 0;
  for (size_t i = 0; i < run.size(); ++i) {
    char c = run[i];
    if (quote) {
      if (c == quote) quote = 0;
      cur.push_back(c);
    } else if (c == '\'' || c == '"') {
      quote = c;
      cur.push_back(c);
    } else if (c == '|') {
      stages.push_back(cur);
      cur.clear();
    } else {
      if (run.compare(i, 4, "2>&1") == 0) {
        cur += "2>&1";
        i += 3;
        continue;
      }
      if ((c == '>' || c == '<' || c == ';' || c == '&') && shell.empty()) shell = c;
      cur.push_back(c);
    }
  }
  open_quote = quote != 0;
  stages.push_back(cur);
  return stages;
}

// Parses the options of a final `FileCheck` stage.
std::string ParseFileCheckStage(const std::vector<std::string>& words, RunLine& run) {
  bool check_file = false;
  auto add_prefixes = [&](const std::string& list) {
    for (size_t b = 0; b <= list.size();) {
      size_t e = list.find(',', b);
      if (e == std::string::npos) e = list.size();
      run.prefixes.push_back(list.substr(b, e - b));
      b = e + 1;
    }
  };
  for (size_t i = 1; i < words.size(); ++i) {
    std::string w = words[i];
    if (w.starts_with("--")) w = w.substr(1);  // FileCheck takes -opt and --opt
    if (w == "%s") {
      check_file = true;
    } else if (w.starts_with("-check-prefix=") || w.starts_with("-check-prefixes=")) {
      add_prefixes(w.substr(w.find('=') + 1));
    } else if ((w == "-check-prefix" || w == "-check-prefixes") && i + 1 < words.size()) {
      add_prefixes(words[++i]);
    } else if (w == "-allow-empty") {
      run.allow_empty = true;
    } else {
      return fmt::format(
          "FileCheck option '{}' is not supported by carve test (it takes %s, "
          "--check-prefix, --check-prefixes and --allow-empty)",
          words[i]);
    }
  }
  if (!check_file) return "FileCheck needs %s, the case itself, as its check file";
  return "";
}

// Parses a RUN command; "" or why it is malformed.
std::string ParseRun(const std::string& command, RunLine& run) {
  if (command.empty()) return "empty RUN line";
  if (command.back() == '\\') return "RUN lines do not continue on the next line";
  std::string shell;
  bool open_quote = false;
  std::vector<std::string> stages = SplitPipeline(command, shell, open_quote);
  if (open_quote) return "unterminated quote in RUN line";
  if (!shell.empty()) {
    return fmt::format("'{}' is not supported in RUN lines (only '|', 'not' and '2>&1')", shell);
  }
  for (size_t k = 0; k < stages.size(); ++k) {
    std::vector<std::string> words = SplitWords(Trim(stages[k]));
    RunStage stage;
    if (!words.empty() && words[0] == "not") {
      stage.negate = true;
      words.erase(words.begin());
    }
    if (!words.empty() && words.back() == "2>&1") {
      stage.merge_stderr = true;
      words.pop_back();
    }
    if (words.empty()) return "empty command in RUN pipeline";
    if (std::count(words.begin(), words.end(), "2>&1") || words[0] == "not") {
      return "'not' goes first and '2>&1' last in a RUN command";
    }
    if (words[0] == "FileCheck") {
      if (k == 0 || k + 1 != stages.size()) {
        return "FileCheck must be the last command of a RUN pipeline, after carve";
      }
      if (stage.negate || stage.merge_stderr) return "'not' and '2>&1' do not apply to FileCheck";
      run.filecheck = true;
      return ParseFileCheckStage(words, run);
    }
    if (words[0] != "carve") {
      return fmt::format("a RUN command runs 'carve' or, last, 'FileCheck', not '{}'", words[0]);
    }
    stage.words = std::move(words);
    run.stages.push_back(std::move(stage));
  }
  return "";
}

// The line or column number of an `expected-*@...` directive. Absurd values
// saturate (the expectation then names no line and fails).
int DirectiveNumber(const std::string& digits) {
  constexpr int64_t kMax = int64_t(1) << 30;
  int64_t v = 0;
  for (char ch : digits) v = std::min<int64_t>(v * 10 + (ch - '0'), kMax);
  return int(v);
}

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

std::string Upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = char(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// The directives a case knows, for the lint of directive-looking comments.
class Directives {
 public:
  explicit Directives(const std::vector<std::string>& prefixes) : prefixes_(prefixes) {
    for (std::string_view w : {"RUN", "EXIT", "TOLERANCE", "COM"}) names_.emplace_back(w);
    for (const std::string& p : prefixes_) {
      names_.push_back(p);
      for (std::string_view s : {"NEXT", "SAME", "NOT", "DAG", "LABEL", "EMPTY", "COUNT"}) {
        names_.push_back(fmt::format("{}-{}", p, s));
      }
    }
  }

  bool Known(std::string_view w) const {
    for (const std::string& p : prefixes_) {
      if (w.starts_with(p + "-COUNT-") && w.size() > p.size() + 7 &&
          std::all_of(w.begin() + long(p.size() + 7), w.end(),
                      [](char c) { return c >= '0' && c <= '9'; })) {
        return true;
      }
    }
    return std::find(names_.begin(), names_.end(), w) != names_.end() && !w.ends_with("-COUNT");
  }

  // "" or why the comment word `w` (followed by ':' when `colon`) is a
  // malformed directive.
  std::string Lint(std::string_view w, bool colon, bool space_before_colon) const {
    const std::string upper = Upper(w);
    const bool all_upper = upper == w;
    if (Known(w)) {
      if (!colon) return fmt::format("missing ':' after directive '{}'", w);
      if (space_before_colon) return fmt::format("space between '{}' and ':'", w);
      return "";
    }
    if (!colon) return "";
    if (Known(upper)) return fmt::format("directive '{}:' must be upper case: '{}:'", w, upper);
    if (!all_upper) return "";
    for (const std::string& p : prefixes_) {
      if (w.size() > p.size() && w.starts_with(p) && (w[p.size()] == '-' || w[p.size()] == '_')) {
        return fmt::format(
            "unknown directive '{}:' (known: {}:, {}-NEXT:, -SAME:, -NOT:, -DAG:, "
            "-LABEL:, -EMPTY:, -COUNT-N:)",
            w, p, p);
      }
    }
    for (const std::string& name : names_) {
      // One edit for short names (RUN, FMT, CHECK), two for long ones.
      const int limit = name.size() <= 2 ? 0 : name.size() <= 5 ? 1 : 2;
      const size_t gap = w.size() > name.size() ? w.size() - name.size() : name.size() - w.size();
      if (gap <= size_t(limit) && filecheck::EditDistance(w, name) <= limit) {
        return fmt::format("misspelled directive '{}:' (did you mean '{}:'?)", w,
                           name.ends_with("-COUNT") ? name + "-N" : name);
      }
    }
    return "";
  }

 private:
  std::vector<std::string> prefixes_;
  std::vector<std::string> names_;
};

class CaseParser {
 public:
  CaseParser(const std::string& file, const std::string& text,
             const std::vector<std::string>& default_prefixes)
      : src_(file, text), lines_(SplitLines(text)), default_prefixes_(default_prefixes) {}

  std::vector<GoldenCase> Run();

 private:
  void Error(GoldenCase& c, size_t line, size_t col, std::string_view message) {
    // Offsets of the line in the file text, for the caret.
    size_t offset = 0;
    for (size_t i = 0; i < line; ++i) offset += lines_[i].size() + 1;
    c.directive_error += src_.Render(offset + col, "error", message);
  }
  void ParseDirectives(GoldenCase& c, size_t begin, size_t end);
  // The expected-* directives of line `i` (each occurrence must be well
  // formed; the first well-formed one is the line's diagnostic).
  void ParseExpectedDiags(GoldenCase& c, size_t i);
  void Lint(GoldenCase& c, size_t begin, size_t end);

  filecheck::SourceText src_;
  std::vector<std::string> lines_;
  std::vector<std::string> default_prefixes_;
};

void CaseParser::ParseDirectives(GoldenCase& c, size_t begin, size_t end) {
  static const RE2 kRun(R"(//\s*RUN:(.*))");
  static const RE2 kExit(R"(//\s*EXIT:(.*))");
  static const RE2 kTolerance(R"(//\s*TOLERANCE:(.*))");
  for (size_t i = begin; i < end; ++i) {
    const std::string& line = lines_[i];
    std::string arg;
    re2::StringPiece at;
    if (RE2::PartialMatch(line, kRun, &arg)) {
      RunLine run;
      run.line = int(i + 1);
      run.column = int(line.find("RUN:")) + 1;
      std::string why = ParseRun(Trim(arg), run);
      if (!why.empty()) {
        Error(c, i, line.find("RUN:"), why);
      } else {
        c.runs.push_back(std::move(run));
      }
      continue;  // the rest of a RUN line is its command
    }
    if (RE2::PartialMatch(line, kExit, &arg)) {
      static const RE2 kNumber(R"(\s*(\d{1,9})\s*)");
      int code = 0;
      if (!RE2::FullMatch(arg, kNumber, &code) || code > 255) {
        Error(c, i, line.find("EXIT:"), "EXIT: takes an exit code, 0 to 255");
      } else if (c.exit_code) {
        Error(c, i, line.find("EXIT:"), "a second EXIT: in this case");
      } else {
        c.exit_code = code;
      }
    } else if (RE2::PartialMatch(line, kTolerance, &arg)) {
      absl::StatusOr<NumericTolerance> tol = ParseTolerance(arg);
      if (!tol.ok()) {
        Error(c, i, line.find("TOLERANCE:"), std::string(tol.status().message()));
      } else if (c.tolerance) {
        Error(c, i, line.find("TOLERANCE:"), "a second TOLERANCE: in this case");
      } else {
        c.tolerance = *tol;
      }
    }
    ParseExpectedDiags(c, i);
  }
}

void CaseParser::ParseExpectedDiags(GoldenCase& c, size_t i) {
  static const RE2 kDiag(
      R"(expected-(error|warning|note)(?:@([+-]?)(\d+)(?::(\d+))?)?\s*\{\{(.*)\}\})");
  static const RE2 kDiagStart(R"(expected-([A-Za-z]*))");
  const std::string& line = lines_[i];
  for (size_t from = line.find("expected-"); from != std::string::npos;
       from = line.find("expected-", from + 1)) {
    if (from > 0 && IsWordChar(line[from - 1])) continue;
    re2::StringPiece rest(line.data() + from, line.size() - from);
    std::string kind, sev, sign, num, col, msg;
    RE2::PartialMatch(rest, kDiagStart, &kind);
    if (kind != "error" && kind != "warning" && kind != "note") {
      Error(c, i, from,
            fmt::format("unknown directive 'expected-{}' (known: expected-error, "
                        "expected-warning, expected-note)",
                        kind));
      continue;
    }
    if (!RE2::Consume(&rest, kDiag, &sev, &sign, &num, &col, &msg)) {
      Error(c, i, from,
            fmt::format("malformed 'expected-{}': write expected-{}[@[+-]LINE[:COL]] "
                        "{{{{message}}}}",
                        kind, kind));
      continue;
    }
    ExpectedDiag d;
    d.severity = sev;
    d.message = msg;
    int here = int(i + 1);
    if (num.empty()) {
      d.line = here;
    } else if (sign == "+") {
      d.line = here + DirectiveNumber(num);
    } else if (sign == "-") {
      d.line = here - DirectiveNumber(num);
    } else {
      d.line = DirectiveNumber(num);
    }
    d.column = col.empty() ? 0 : DirectiveNumber(col);
    c.diags.push_back(d);
    break;  // the message runs to the line's last '}}'
  }
}

// Every comment that starts with a directive-looking word must be a known
// directive: `// CHEK:`, `// CHECK-FOO:`, `// Check:`, `// CHECK-NEXT foo`
// are errors, while prose (`// Note: ...`) is not.
void CaseParser::Lint(GoldenCase& c, size_t begin, size_t end) {
  std::vector<std::string> prefixes = default_prefixes_;
  if (std::find(prefixes.begin(), prefixes.end(), "CHECK") == prefixes.end()) {
    prefixes.push_back("CHECK");
  }
  for (const RunLine& r : c.runs) {
    for (const std::string& p : r.prefixes) {
      if (!p.empty() && std::find(prefixes.begin(), prefixes.end(), p) == prefixes.end()) {
        prefixes.push_back(p);
      }
    }
  }
  Directives directives(prefixes);
  for (size_t i = begin; i < end; ++i) {
    const std::string& line = lines_[i];
    size_t slash = line.find("//");
    if (slash == std::string::npos) continue;
    size_t w = slash + 2;
    while (w < line.size() && (line[w] == ' ' || line[w] == '\t')) ++w;
    if (w >= line.size() || !std::isalpha(static_cast<unsigned char>(line[w]))) continue;
    size_t e = w;
    while (e < line.size() && IsWordChar(line[e])) ++e;
    size_t k = e;
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
    const bool colon = k < line.size() && (line[k] == ':' || line[k] == '{');
    // A known word that ends the comment or is followed by text, not ':'.
    const bool bare = !colon && (e == line.size() || line[e] == ' ' || line[e] == '\t');
    if (!colon && !bare) continue;
    std::string why = directives.Lint(std::string_view(line).substr(w, e - w), colon, k > e);
    if (!why.empty()) Error(c, i, w, why);
  }
}

std::vector<GoldenCase> CaseParser::Run() {
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t start = 0;
  for (size_t i = 0; i < lines_.size(); ++i) {
    if (TrimRight(lines_[i]) == kCaseSeparator) {
      ranges.emplace_back(start, i);
      start = i + 1;
    }
  }
  ranges.emplace_back(start, lines_.size());
  std::vector<GoldenCase> cases;
  for (auto [b, e] : ranges) {
    GoldenCase c;
    c.first_line = int(b);
    // Blank the lines of earlier cases so that line numbers match the file.
    c.text.assign(b, '\n');
    for (size_t i = b; i < e; ++i) c.text += lines_[i] + "\n";
    ParseDirectives(c, b, e);
    Lint(c, b, e);
    if (c.runs.empty() && c.directive_error.empty()) {
      Error(c, std::min(b, lines_.empty() ? 0 : lines_.size() - 1), 0,
            "this case has no RUN line (cases are separated by '// -----')");
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

std::vector<GoldenCase> ParseGoldenCases(const std::string& file, const std::string& text,
                                         const std::vector<std::string>& default_prefixes) {
  return CaseParser(file, text, default_prefixes).Run();
}

}  // namespace carve::cli
