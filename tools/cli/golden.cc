#include "tools/cli/golden.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>

#include "fmt/format.h"
#include "re2/re2.h"
#include "tools/cli/cli.h"
#include "tools/cli/golden_compare.h"

namespace carve::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCaseSeparator = "// -----";

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

std::string TrimRight(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return TrimRight(s.substr(b));
}

struct ExpectedDiag {
  int line = 0;
  int column = 0;  // 0 = any
  std::string severity;
  std::string message;
  bool found = false;
};

struct CheckLine {
  std::string kind;  // CHECK, CHECK-NEXT, CHECK-NOT, CHECK-EMPTY
  std::string text;
  int line = 0;
};

struct Case {
  int first_line = 0;  // 0-based index of its first line in the file
  std::string text;    // the file with other cases blanked
  std::vector<std::string> runs;
  std::vector<CheckLine> checks;
  std::vector<ExpectedDiag> diags;
  std::optional<int> exit_code;
  // From `// TOLERANCE: rtol=R atol=A`: numbers in this case's part of the
  // .expected file compare within the tolerance (golden_compare.h).
  std::optional<NumericTolerance> tolerance;
  std::string directive_error;  // a malformed directive fails the case
};

// Splits a RUN pipeline stage into words, honouring '...' and "..." quotes.
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

std::vector<std::string> SplitPipeline(const std::string& run) {
  std::vector<std::string> stages;
  std::string cur;
  char quote = 0;
  for (char c : run) {
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
      cur.push_back(c);
    }
  }
  stages.push_back(cur);
  return stages;
}

// The line or column number of an `expected-*@...` directive. Absurd values
// saturate (the expectation then names no line and fails) rather than
// throwing from std::stoi or overflowing `int`.
int DirectiveNumber(const std::string& digits) {
  constexpr int64_t kMax = int64_t(1) << 30;
  int64_t v = 0;
  for (char ch : digits) v = std::min<int64_t>(v * 10 + (ch - '0'), kMax);
  return int(v);
}

void ParseDirectives(const std::vector<std::string>& lines, size_t begin, size_t end, Case& c) {
  static const RE2 kRun(R"(//\s*RUN:\s*(.*))");
  static const RE2 kCheck(R"(//\s*(CHECK(?:-NEXT|-NOT|-EMPTY)?):\s?(.*))");
  static const RE2 kExit(R"(//\s*EXIT:\s*(\d+))");
  static const RE2 kTolerance(R"(//\s*TOLERANCE:(.*))");
  static const RE2 kDiag(
      R"(expected-(error|warning|note)(?:@([+-]?)(\d+)(?::(\d+))?)?\s*\{\{(.*)\}\})");
  for (size_t i = begin; i < end; ++i) {
    const std::string& line = lines[i];
    std::string run, kind, text, sev, sign, num, col, msg, spec;
    int code = 0;
    if (RE2::PartialMatch(line, kRun, &run)) {
      c.runs.push_back(Trim(run));
    } else if (RE2::PartialMatch(line, kCheck, &kind, &text)) {
      c.checks.push_back(CheckLine{kind, TrimRight(text), int(i + 1)});
    } else if (RE2::PartialMatch(line, kExit, &code)) {
      c.exit_code = code;
    } else if (RE2::PartialMatch(line, kTolerance, &spec)) {
      absl::StatusOr<NumericTolerance> tol = ParseTolerance(spec);
      if (tol.ok()) {
        c.tolerance = *tol;
      } else {
        c.directive_error +=
            fmt::format("  line {}: {}\n", i + 1, std::string(tol.status().message()));
      }
    }
    if (RE2::PartialMatch(line, kDiag, &sev, &sign, &num, &col, &msg)) {
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
    }
  }
}

std::vector<Case> SplitCases(const std::string& text) {
  std::vector<std::string> lines = SplitLines(text);
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t start = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (TrimRight(lines[i]) == kCaseSeparator) {
      ranges.emplace_back(start, i);
      start = i + 1;
    }
  }
  ranges.emplace_back(start, lines.size());
  std::vector<Case> cases;
  for (auto [b, e] : ranges) {
    Case c;
    c.first_line = int(b);
    // Blank the lines of earlier cases so that line numbers match the file.
    c.text.assign(b, '\n');
    for (size_t i = b; i < e; ++i) c.text += lines[i] + "\n";
    ParseDirectives(lines, b, e, c);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string DetectSharedDir(const std::string& test_path) {
  if (const char* env = std::getenv("CARVE_SHARED_DIR"); env && *env) return env;
  std::error_code ec;
  fs::path p = fs::absolute(test_path, ec);
  for (fs::path dir = p.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "shared" / "spec", ec)) return (dir / "shared").string();
    if (dir == dir.root_path()) break;
  }
  return "../shared";
}

struct RunOutput {
  std::string text;
  int exit_code = 0;
};

RunOutput RunPipeline(const std::string& run, const std::string& virtual_name,
                      const std::string& case_text, const std::string& test_dir,
                      const std::string& shared_dir, Env& outer) {
  RunOutput result;
  std::string stdin_text;
  std::string stderr_text;
  for (const std::string& stage : SplitPipeline(run)) {
    std::vector<std::string> words = SplitWords(Trim(stage));
    for (std::string& w : words) {
      std::string out;
      for (size_t i = 0; i < w.size(); ++i) {
        if (w.compare(i, 7, "%shared") == 0) {
          out += shared_dir;
          i += 6;
        } else if (w.compare(i, 2, "%s") == 0) {
          out += virtual_name;
          i += 1;
        } else if (w.compare(i, 2, "%S") == 0) {
          out += test_dir;
          i += 1;
        } else {
          out.push_back(w[i]);
        }
      }
      w = out;
    }
    if (words.empty() || words[0] != "carve") {
      result.text = fmt::format("golden: RUN stage must start with 'carve': {}\n", stage);
      result.exit_code = -1;
      return result;
    }
    std::istringstream in(stdin_text);
    std::ostringstream out, err;
    Env env = outer;
    env.in = &in;
    env.out = &out;
    env.err = &err;
    env.prefault_heap = nullptr;  // cases are small, and many run in one process
    auto real_read = outer.read_file;
    env.read_file = [&, real_read](const std::string& path) -> absl::StatusOr<std::string> {
      if (path == virtual_name) return case_text;
      if (path == "-") return stdin_text;
      return real_read(path);
    };
    auto real_write = outer.write_file;
    env.write_file = [&, real_write](const std::string& path, const std::string& text) {
      if (path == "-") {
        out << text;
        return absl::OkStatus();
      }
      return real_write(path, text);
    };
    std::vector<std::string> args(words.begin() + 1, words.end());
    result.exit_code = RunCarve(args, env);
    stdin_text = out.str();
    stderr_text += err.str();
  }
  result.text = stdin_text + stderr_text;
  return result;
}

// FileCheck-lite over `output`; returns "" on success or a failure message.
std::string RunChecks(const std::vector<CheckLine>& checks, const std::string& output) {
  std::vector<std::string> lines = SplitLines(output);
  size_t pos = 0;
  std::vector<const CheckLine*> pending_not;
  auto fail = [&](const CheckLine& c, const std::string& why) {
    return fmt::format("line {}: {}: {}: {}", c.line, c.kind, c.text, why);
  };
  auto check_nots = [&](size_t from, size_t to) -> std::string {
    for (const CheckLine* n : pending_not) {
      for (size_t i = from; i < to && i < lines.size(); ++i) {
        if (lines[i].find(n->text) != std::string::npos) {
          return fail(*n, fmt::format("found in output line {}: {}", i + 1, lines[i]));
        }
      }
    }
    pending_not.clear();
    return "";
  };
  for (const CheckLine& c : checks) {
    if (c.kind == "CHECK-NOT") {
      pending_not.push_back(&c);
      continue;
    }
    size_t found = lines.size();
    if (c.kind == "CHECK") {
      for (size_t i = pos; i < lines.size(); ++i) {
        if (lines[i].find(c.text) != std::string::npos) {
          found = i;
          break;
        }
      }
      if (found == lines.size()) return fail(c, "not found in the output");
    } else if (c.kind == "CHECK-NEXT") {
      if (pos >= lines.size() || lines[pos].find(c.text) == std::string::npos) {
        return fail(c, fmt::format("the next line is '{}'",
                                   pos < lines.size() ? lines[pos] : "<end of output>"));
      }
      found = pos;
    } else {  // CHECK-EMPTY
      if (pos >= lines.size() || !lines[pos].empty()) return fail(c, "the next line is not empty");
      found = pos;
    }
    std::string nots = check_nots(pos, found);
    if (!nots.empty()) return nots;
    pos = found + 1;
  }
  return check_nots(pos, lines.size());
}

std::string CheckDiagnostics(std::vector<ExpectedDiag> expected, const std::string& output,
                             const std::string& file_name) {
  static const RE2 kLine(R"(^(.*):(\d+):(\d+): (error|warning|note): (.*)$)");
  std::string failures;
  for (const std::string& line : SplitLines(output)) {
    std::string file, sev, msg;
    int l = 0, c = 0;
    if (!RE2::FullMatch(line, kLine, &file, &l, &c, &sev, &msg)) continue;
    if (file != file_name) continue;
    bool matched = false;
    for (ExpectedDiag& d : expected) {
      if (!d.found && d.severity == sev && d.line == l && (d.column == 0 || d.column == c) &&
          msg.find(d.message) != std::string::npos) {
        d.found = matched = true;
        break;
      }
    }
    if (!matched && sev == "error") {
      failures += fmt::format("  unexpected diagnostic: {}\n", line);
    }
  }
  for (const ExpectedDiag& d : expected) {
    if (!d.found) {
      failures += fmt::format("  expected {} at {}:{} not produced: {}\n", d.severity, d.line,
                              d.column == 0 ? std::string("*") : std::to_string(d.column),
                              d.message);
    }
  }
  return failures;
}

std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::vector<std::string> a = SplitLines(expected), b = SplitLines(actual);
  size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    std::string x = i < a.size() ? a[i] : "<end>";
    std::string y = i < b.size() ? b[i] : "<end>";
    if (x != y) {
      return fmt::format("  first difference at output line {}:\n    expected: {}\n    actual:   {}\n",
                         i + 1, x, y);
    }
  }
  return "  outputs differ in trailing newlines\n";
}

}  // namespace

std::vector<std::string> FindGoldenFiles(const std::string& path) {
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::string p = it->path().string();
    if (p.ends_with(".expected") || p.ends_with(".md")) continue;
    files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  return files;
}

GoldenResult RunGoldenFile(const std::string& path, const GoldenOptions& options, Env& env) {
  GoldenResult result;
  result.file = path;
  absl::StatusOr<std::string> text = env.read_file(path);
  if (!text.ok()) {
    result.failed = 1;
    result.report = std::string(text.status().message()) + "\n";
    return result;
  }
  std::vector<Case> cases = SplitCases(*text);
  std::string virtual_name = fs::path(path).filename().string();
  std::string test_dir = fs::path(path).parent_path().string();
  std::string shared = options.shared_dir.empty() ? DetectSharedDir(path) : options.shared_dir;
  std::string expected_path = path + ".expected";
  bool uses_expected_file = false;
  std::vector<std::string> outputs;
  std::vector<std::optional<NumericTolerance>> tolerances;  // per output
  for (size_t k = 0; k < cases.size(); ++k) {
    Case& c = cases[k];
    if (c.runs.empty()) continue;
    ++result.cases;
    std::string output;
    int exit_code = 0;
    for (const std::string& run : c.runs) {
      RunOutput r = RunPipeline(run, virtual_name, c.text, test_dir, shared, env);
      output += r.text;
      exit_code = r.exit_code;
    }
    std::string failure = c.directive_error;
    int want_exit = c.exit_code.value_or(c.diags.empty() ? 0 : 1);
    if (exit_code != want_exit) {
      failure += fmt::format("  exit code {} (expected {})\n", exit_code, want_exit);
    }
    if (!c.checks.empty()) {
      std::string f = RunChecks(c.checks, output);
      if (!f.empty()) failure += "  " + f + "\n";
    }
    if (!c.diags.empty()) failure += CheckDiagnostics(c.diags, output, virtual_name);
    if (c.checks.empty() && c.diags.empty()) {
      uses_expected_file = true;
      outputs.push_back(output);
      tolerances.push_back(c.tolerance);
    }
    if (!failure.empty()) {
      ++result.failed;
      result.report += fmt::format("{}: case starting at line {} failed:\n{}", path,
                                   c.first_line + 1, failure);
      result.report += "  output was:\n";
      for (const std::string& l : SplitLines(output)) result.report += "    | " + l + "\n";
    }
  }
  if (uses_expected_file) {
    std::string actual;
    std::vector<std::optional<NumericTolerance>> line_tolerance;
    size_t newlines = 0;  // in `actual` so far (each case counted once)
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (i) {
        actual += std::string(kCaseSeparator) + "\n";
        ++newlines;
      }
      actual += outputs[i];
      newlines += size_t(std::count(outputs[i].begin(), outputs[i].end(), '\n'));
      // Lines started so far (a separator line counts with the case before).
      line_tolerance.resize(newlines + 1, tolerances[i]);
    }
    absl::StatusOr<std::string> expected = env.read_file(expected_path);
    const bool tolerant = std::any_of(tolerances.begin(), tolerances.end(),
                                      [](const auto& t) { return t.has_value(); });
    // "" when the expected text matches (within the cases' tolerances).
    auto mismatch = [&]() -> std::string {
      if (!tolerant) return *expected == actual ? "" : FirstDifference(*expected, actual);
      std::string why = CompareTolerant(*expected, actual, line_tolerance);
      return why.empty() ? "" : "  first difference at " + why + "\n";
    };
    if (options.update) {
      // Within tolerance the file stays as it is, so --update on another
      // ISA does not churn the last digits.
      if (!expected.ok() || !mismatch().empty()) {
        absl::Status s = env.write_file(expected_path, actual);
        if (!s.ok()) {
          ++result.failed;
          result.report += std::string(s.message()) + "\n";
        }
        result.updated = true;
      }
    } else if (!expected.ok()) {
      ++result.failed;
      result.report += fmt::format("{}: missing {} (run `carve test --update`)\n", path,
                                   expected_path);
    } else if (std::string why = mismatch(); !why.empty()) {
      ++result.failed;
      result.report += fmt::format("{}: output differs from {}\n{}", path, expected_path, why);
    }
  }
  return result;
}

}  // namespace carve::cli
