#include "tools/cli/golden.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>

#include "fmt/format.h"
#include "re2/re2.h"
#include "support/cancellation.h"
#include "tools/cli/cli.h"
#include "tools/cli/filecheck.h"
#include "tools/cli/golden_case.h"
#include "tools/cli/golden_compare.h"
#include "tools/cli/golden_run.h"

namespace carve::cli {
namespace {

namespace fs = std::filesystem;


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

std::vector<std::string> PrefixesOr(const std::vector<std::string>& prefixes) {
  return prefixes.empty() ? std::vector<std::string>{"CHECK"} : prefixes;
}

std::string ShowOutput(const std::string& title, const std::string& output) {
  constexpr size_t kMaxLines = 200;
  std::vector<std::string> lines = SplitLines(output);
  std::string s = fmt::format("  {}:\n", title);
  for (size_t i = 0; i < lines.size() && i < kMaxLines; ++i) s += "    | " + lines[i] + "\n";
  if (lines.size() > kMaxLines) {
    s += fmt::format("    ... ({} more lines)\n", lines.size() - kMaxLines);
  }
  return s;
}

std::string CheckDiagnostics(std::vector<ExpectedDiag> expected, const std::string& output,
                             const std::string& file_name) {
  static const RE2 kLine(R"(^(.*):(\d+):(\d+): (error|warning|note): (.*)$)");
  static const RE2 kOtherError(R"(^\S*: error: .*$)");
  std::string failures;
  for (const std::string& line : SplitLines(output)) {
    std::string file, sev, msg;
    int l = 0, c = 0;
    if (!RE2::FullMatch(line, kLine, &file, &l, &c, &sev, &msg)) {
      // An error without a line of this file cannot be expected: it fails
      // the case rather than pass unnoticed beside the expected ones.
      if (RE2::FullMatch(line, kOtherError)) {
        failures += fmt::format("  unexpected diagnostic: {}\n", line);
      }
      continue;
    }
    if (file != file_name) {
      if (sev == "error") failures += fmt::format("  unexpected diagnostic: {}\n", line);
      continue;
    }
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
      failures +=
          fmt::format("  expected {} at {}:{} not produced: {}\n", d.severity, d.line,
                      d.column == 0 ? std::string("*") : std::to_string(d.column), d.message);
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
      return fmt::format(
          "  first difference at output line {}:\n    expected: {}\n    actual:   {}\n", i + 1, x,
          y);
    }
  }
  return "  outputs differ in trailing newlines\n";
}

// The result of one case.
struct CaseOutcome {
  std::string failure;          // "" when the case passed
  bool show_output = false;     // the failure needs the whole output to be understood
  bool uses_expected = false;   // its implicit output goes to the .expected file
  std::string implicit_output;  // of the RUN lines without FileCheck
};

class CaseRunner {
 public:
  CaseRunner(const std::string& path, const GoldenOptions& options, const Substitutions& subst,
             Env& env)
      : path_(path), options_(options), subst_(subst), env_(env) {}

  CaseOutcome Run(const GoldenCase& c);

 private:
  // Runs the case's RUN lines: checks each one's exit code, FileChecks the
  // output of those that pipe into FileCheck (adding their prefixes to
  // `used`) and collects the others' in o.implicit_output. Returns whether
  // there were such others.
  bool RunLines(const GoldenCase& c, CaseOutcome& o, std::vector<std::string>& used);
  // Checks o.implicit_output with the case's CHECK lines of the default
  // prefixes (adding them to `used`); returns whether there were any.
  bool CheckImplicitOutput(const GoldenCase& c, CaseOutcome& o, std::vector<std::string>& used);
  // FileCheck of `output` against the case with `prefixes`; "" or why not.
  std::string Check(const GoldenCase& c, const std::vector<std::string>& prefixes,
                    const std::string& output, const std::string& output_name, bool allow_empty);
  std::string UncheckedDirectives(const GoldenCase& c, const std::vector<std::string>& used);

  const std::string& path_;
  const GoldenOptions& options_;
  const Substitutions& subst_;
  Env& env_;
};

std::string CaseRunner::Check(const GoldenCase& c, const std::vector<std::string>& prefixes,
                              const std::string& output, const std::string& output_name,
                              bool allow_empty) {
  filecheck::CheckOptions fc;
  fc.check_prefixes = prefixes;
  fc.strict = true;
  absl::StatusOr<filecheck::CheckFile> file = filecheck::CheckFile::Parse(path_, c.text, fc);
  if (!file.ok()) return std::string(file.status().message());
  if (output.empty() && !allow_empty) {
    return fmt::format(
        "{}: error: {} is empty: the command printed nothing (FileCheck "
        "--allow-empty accepts that)\n",
        path_, output_name);
  }
  return file->Match(output, output_name);
}

// Directives whose prefix no RUN line checks: an error, since they would
// silently test nothing.
std::string CaseRunner::UncheckedDirectives(const GoldenCase& c,
                                            const std::vector<std::string>& used) {
  std::vector<std::string> known = PrefixesOr(options_.check_prefixes);
  known.push_back("CHECK");
  for (const RunLine& r : c.runs) known.insert(known.end(), r.prefixes.begin(), r.prefixes.end());
  std::string report;
  std::vector<std::string> seen;
  for (const std::string& p : known) {
    if (std::count(used.begin(), used.end(), p) || std::count(seen.begin(), seen.end(), p)) {
      continue;
    }
    seen.push_back(p);
    filecheck::CheckOptions fc;
    fc.check_prefixes = {p};
    fc.allow_unused_prefixes = true;
    absl::StatusOr<filecheck::CheckFile> file = filecheck::CheckFile::Parse(path_, c.text, fc);
    if (!file.ok() || file->checks().empty()) continue;
    const filecheck::CheckString& first = file->checks().front();
    const int line = first.dag_not.empty() ? first.pattern.line : first.dag_not.front().line;
    report += fmt::format("{}:{}: error: '{}:' directives, but no RUN line checks prefix '{}'\n",
                          path_, line, p, p);
  }
  return report;
}

// Whether a stage of `run` is negated with `not`.
bool Negated(const RunLine& run) {
  return std::any_of(run.stages.begin(), run.stages.end(),
                     [](const RunStage& s) { return s.negate; });
}

bool CaseRunner::RunLines(const GoldenCase& c, CaseOutcome& o, std::vector<std::string>& used) {
  bool has_implicit = false;
  for (size_t k = 0; k < c.runs.size(); ++k) {
    const RunLine& run = c.runs[k];
    RunOutput r = RunPipeline(run, subst_, c.text, env_);
    const bool last = k + 1 == c.runs.size();
    // Every RUN line exits 0 (after `not`), except that EXIT: or expected
    // errors set the last one's code.
    int want = 0;
    if (last && c.exit_code) {
      want = *c.exit_code;
    } else if (last && !c.diags.empty() && !run.filecheck && !Negated(run)) {
      want = 1;
    }
    if (r.exit_code != want) {
      o.failure += fmt::format("{}:{}:{}: error: RUN line exited {} (expected {}{}): {}\n", path_,
                               run.line, run.column, r.exit_code, want,
                               last && c.exit_code ? ", from EXIT:" : "", r.exit_report);
      o.show_output = true;
    }
    if (run.filecheck) {
      std::vector<std::string> prefixes = PrefixesOr(run.prefixes);
      used.insert(used.end(), prefixes.begin(), prefixes.end());
      std::string why = Check(c, prefixes, r.out, fmt::format("<stdout of RUN line {}>", run.line),
                              run.allow_empty);
      if (!why.empty()) {
        o.failure += why;
        if (!r.err.empty()) o.failure += ShowOutput("its standard error was", r.err);
      }
    } else {
      has_implicit = true;
      o.implicit_output += r.out + r.err;
    }
  }
  return has_implicit;
}

bool CaseRunner::CheckImplicitOutput(const GoldenCase& c, CaseOutcome& o,
                                     std::vector<std::string>& used) {
  std::vector<std::string> prefixes = PrefixesOr(options_.check_prefixes);
  filecheck::CheckOptions fc;
  fc.check_prefixes = prefixes;
  fc.allow_unused_prefixes = true;
  absl::StatusOr<filecheck::CheckFile> file = filecheck::CheckFile::Parse(path_, c.text, fc);
  if (file.ok() && file->checks().empty()) return false;
  // As in lit, directives a RUN line's FileCheck reads are that line's: the
  // other RUN lines (`carve import M.onnx -o %t` before `carve partition %t
  // | FileCheck %s`) are then only run, their exit status checked.
  std::erase_if(prefixes, [&](const std::string& p) { return std::ranges::count(used, p) > 0; });
  if (prefixes.empty()) return true;
  fc.check_prefixes = prefixes;
  file = filecheck::CheckFile::Parse(path_, c.text, fc);
  if (file.ok() && file->checks().empty()) return true;
  used.insert(used.end(), prefixes.begin(), prefixes.end());
  std::string why = Check(c, prefixes, o.implicit_output, "<output>", /*allow_empty=*/true);
  if (!why.empty()) o.failure += why;
  return true;
}

CaseOutcome CaseRunner::Run(const GoldenCase& c) {
  CaseOutcome o;
  if (!c.directive_error.empty()) {
    o.failure = c.directive_error;
    return o;
  }
  if (c.exit_code && Negated(c.runs.back())) {
    o.failure = fmt::format("{}:{}:{}: error: EXIT: and 'not' both on the last RUN line: use one\n",
                            path_, c.runs.back().line, c.runs.back().column);
    return o;
  }
  std::vector<std::string> used;  // prefixes some FileCheck reads
  const bool has_implicit = RunLines(c, o, used);
  const bool implicit_checks = has_implicit && CheckImplicitOutput(c, o, used);
  o.failure += UncheckedDirectives(c, used);
  if (!c.diags.empty()) {
    if (!has_implicit) {
      o.failure += fmt::format(
          "{}:{}: error: expected-{} directives check the output of RUN lines "
          "without FileCheck, and this case has none\n",
          path_, c.diags.front().line, c.diags.front().severity);
    } else if (std::string why = CheckDiagnostics(c.diags, o.implicit_output, subst_.virtual_name);
               !why.empty()) {
      o.failure += why;
      o.show_output = true;
    }
  }
  // A case that pipes a RUN line into FileCheck is checked the lit way: its
  // other RUN lines' outputs go to no .expected file.
  const bool has_filecheck =
      std::ranges::any_of(c.runs, [](const RunLine& r) { return r.filecheck; });
  o.uses_expected = has_implicit && !implicit_checks && c.diags.empty() && !has_filecheck;
  if (c.tolerance && !o.uses_expected) {
    o.failure += fmt::format(
        "{}:{}: error: TOLERANCE: applies only to a case compared with "
        "{}.expected (no CHECK or expected-* directives)\n",
        path_, c.first_line + 1, path_);
  }
  return o;
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
    // Expected outputs, notes and the data cases read (files under a
    // folder named `data`) are not cases.
    if (p.ends_with(".expected") || p.ends_with(".md")) continue;
    const fs::path folder = it->path().parent_path().lexically_relative(path);
    if (std::ranges::find(folder, "data") != folder.end()) continue;
    files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// The outputs of the cases compared with the .expected file, in case order.
struct ExpectedParts {
  std::vector<std::string> outputs;
  std::vector<std::optional<NumericTolerance>> tolerances;  // per output
  bool used = false;  // some case compares its output with the file
  // A case with broken directives may or may not own a part of the
  // .expected file: the file is then neither compared nor rewritten.
  bool broken_directives = false;
};

// Runs the cases of the golden file `path`, counting and reporting each
// failure in `result`.
ExpectedParts RunCases(const std::string& path, const std::vector<GoldenCase>& cases,
                       const GoldenOptions& options, Env& env, GoldenResult& result) {
  Substitutions subst;
  subst.virtual_name = fs::path(path).filename().string();
  // A bare file name (`carve test x.test` in its folder) has no parent:
  // %S is then the current directory, not "" (which made `%S/data/f`
  // the absolute path "/data/f").
  subst.test_dir = fs::path(path).parent_path().string();
  if (subst.test_dir.empty()) subst.test_dir = ".";
  subst.shared_dir = options.shared_dir.empty() ? DetectSharedDir(path) : options.shared_dir;
  // %t: a scratch path per case, in a folder of this process removed at the end.
  std::error_code ec;
  const fs::path temp_dir =
      fs::temp_directory_path(ec) / fmt::format("carve-golden-{}", static_cast<long>(getpid()));
  bool temp_made = false;
  ExpectedParts parts;
  for (size_t k = 0; k < cases.size(); ++k) {
    if (CancellationRequested()) {
      result.interrupted = true;
      break;
    }
    const GoldenCase& c = cases[k];
    ++result.cases;
    subst.temp_path = (temp_dir / fmt::format("{}.case{}.tmp", subst.virtual_name, k + 1)).string();
    if (!temp_made && c.text.find("%t") != std::string::npos) {
      temp_made = fs::create_directories(temp_dir, ec) || fs::is_directory(temp_dir, ec);
    }
    CaseOutcome o = CaseRunner(path, options, subst, env).Run(c);
    if (CancellationRequested()) {
      // The case was cut short: its outcome says nothing.
      --result.cases;
      result.interrupted = true;
      break;
    }
    parts.broken_directives = parts.broken_directives || !c.directive_error.empty();
    if (o.uses_expected) {
      // A failed case keeps its place, so that the others line up with
      // their parts of the .expected file.
      parts.used = true;
      parts.outputs.push_back(o.implicit_output);
      parts.tolerances.push_back(c.tolerance);
    }
    if (!o.failure.empty()) {
      ++result.failed;
      result.report += fmt::format("{}: case starting at line {} failed:\n{}", path,
                                   c.first_line + 1, o.failure);
      if (o.show_output) result.report += ShowOutput("output was", o.implicit_output);
    }
  }
  if (temp_made) fs::remove_all(temp_dir, ec);
  return parts;
}

// Compares the cases' outputs, joined by separator lines, with
// `expected_path` (within the cases' tolerances), or rewrites the file
// with --update.
void CheckExpectedFile(const std::string& path, const std::string& expected_path,
                       const ExpectedParts& parts, const GoldenOptions& options, Env& env,
                       GoldenResult& result) {
  std::string actual;
  std::vector<std::optional<NumericTolerance>> line_tolerance;
  size_t newlines = 0;  // in `actual` so far (each case counted once)
  for (size_t i = 0; i < parts.outputs.size(); ++i) {
    if (i) {
      actual += std::string(kCaseSeparator) + "\n";
      ++newlines;
    }
    actual += parts.outputs[i];
    newlines += size_t(std::count(parts.outputs[i].begin(), parts.outputs[i].end(), '\n'));
    // Lines started so far (a separator line counts with the case before).
    line_tolerance.resize(newlines + 1, parts.tolerances[i]);
  }
  absl::StatusOr<std::string> expected = env.read_file(expected_path);
  const bool tolerant = std::any_of(parts.tolerances.begin(), parts.tolerances.end(),
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
    result.report +=
        fmt::format("{}: missing {} (run `carve test --update`)\n", path, expected_path);
  } else if (std::string why = mismatch(); !why.empty()) {
    ++result.failed;
    result.report += fmt::format("{}: output differs from {}\n{}", path, expected_path, why);
  }
}

}  // namespace

GoldenResult RunGoldenFile(const std::string& path, const GoldenOptions& options, Env& env) {
  GoldenResult result;
  result.file = path;
  absl::StatusOr<std::string> text = env.read_file(path);
  if (!text.ok()) {
    result.failed = 1;
    result.report = std::string(text.status().message()) + "\n";
    return result;
  }
  std::vector<GoldenCase> cases = ParseGoldenCases(path, *text, PrefixesOr(options.check_prefixes));
  ExpectedParts parts = RunCases(path, cases, options, env, result);
  if (result.interrupted) return result;  // never an .expected file from part of the cases
  const std::string expected_path = path + ".expected";
  if (parts.broken_directives) {
    if (env.read_file(expected_path).ok() || options.update) {
      result.report += fmt::format("{}: {} not {} until the directives are fixed\n", path,
                                   expected_path, options.update ? "updated" : "compared");
    }
  } else if (!parts.used && env.read_file(expected_path).ok()) {
    // Left over from cases that now have CHECK lines: it tests nothing.
    ++result.failed;
    result.report += fmt::format(
        "{}: error: {} is compared with no case (every case has CHECK or "
        "expected-* directives); delete it\n",
        path, expected_path);
  } else if (parts.used) {
    CheckExpectedFile(path, expected_path, parts, options, env, result);
  }
  return result;
}

}  // namespace carve::cli
