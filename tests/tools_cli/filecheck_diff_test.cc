// Differential test: every (check file, input) pair below goes through
// carve's FileCheck (tools/cli/filecheck.h) and LLVM's
// /usr/lib/llvm-14/bin/FileCheck (Debian llvm-14-tools, installed by
// scripts/install-deps.sh), which must agree: both pass, both report a
// failed match, or both reject the check file; then the same for a few
// hundred random check files over a small alphabet (fixed seed). Skipped,
// with a message, only where FileCheck is not installed. About 10 s.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tools/cli/filecheck.h"

namespace carve::filecheck {
namespace {

constexpr const char* kFileCheck = "/usr/lib/llvm-14/bin/FileCheck";

struct Pair {
  const char* check;
  const char* input;
  const char* prefixes = "";  // --check-prefixes, comma-separated
};

// Every directive kind, passing and failing, and the corners where a
// simpler checker would differ: matches on one line, the line distance of
// -NEXT/-SAME/-EMPTY, -NOT between -DAG groups, -LABEL blocks, whitespace,
// variables, regex alternation and anchors, malformed directives.
const Pair kPairs[] = {
    // CHECK: in order, several on one line, substring matches.
    {"CHECK: foo\nCHECK: bar\n", "foo bar\n"},
    {"CHECK: bar\nCHECK: foo\n", "foo bar\n"},
    {"CHECK: foo\nCHECK: foo\n", "foo\n"},
    {"CHECK: foo\nCHECK: foo\n", "foofoo\n"},
    {"CHECK: a\nCHECK: c\n", "a\nb\nc\n"},
    {"CHECK: x\n", "a\nb\n"},
    {"// CHECK: add(%x, %y)\n", "  %0 = add(%x, %y);\n"},
    {"CHECK: a b\n", "a \t  b\n"},
    {"CHECK: a  b\n", "a b\n"},
    {"CHECK: ab\n", "a b\n"},
    {"CHECK:    trailing   \n", "x trailing\n"},
    {"CHECK:foo\n", "foo\n"},
    {"XCHECK: nothing\nCHECK: a\n", "a\n"},
    {"CHECK: a\nNOTCHECK: zzz\n", "a\n"},
    {"CHECK: a\r\nCHECK-NEXT: b\r\n", "a\r\nb\r\n"},
    // -NEXT.
    {"CHECK: a\nCHECK-NEXT: b\n", "a\nb\n"},
    {"CHECK: a\nCHECK-NEXT: b\n", "a\nx\nb\n"},
    {"CHECK: a\nCHECK-NEXT: b\n", "a b\n"},
    {"CHECK: a\nCHECK-NEXT: b\nCHECK-NEXT: c\n", "a\nb\nc\n"},
    {"CHECK: a\nCHECK-NEXT: c\n", "a\nb\nc\n"},
    {"CHECK-NEXT: a\n", "a\n"},
    {"CHECK: a\nCHECK-NEXT: b\n", "a\n"},
    // -SAME.
    {"CHECK: a\nCHECK-SAME: b\n", "a b\n"},
    {"CHECK: a\nCHECK-SAME: b\n", "a\nb\n"},
    {"CHECK: a\nCHECK-SAME: b\nCHECK-SAME: c\n", "a b c\n"},
    {"CHECK: a\nCHECK-SAME: c\nCHECK-SAME: b\n", "a b c\n"},
    {"CHECK-SAME: a\n", "a\n"},
    // -EMPTY.
    {"CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n", "a\n\nb\n"},
    {"CHECK: a\nCHECK-EMPTY:\n", "a\nb\n\n"},
    {"CHECK: a\nCHECK-EMPTY:\n", "a\n"},
    {"CHECK: a\nCHECK-EMPTY:\n", "a\n\n"},
    {"CHECK: a\nCHECK-EMPTY: x\n", "a\n\n"},
    {"CHECK: a\nCHECK-EMPTY:\n", "a\n  \n"},
    // -NOT.
    {"CHECK: a\nCHECK-NOT: b\nCHECK: c\n", "a\nc\nb\n"},
    {"CHECK: a\nCHECK-NOT: b\nCHECK: c\n", "a\nb\nc\n"},
    {"CHECK-NOT: b\n", "a\nb\n"},
    {"CHECK-NOT: b\n", "a\nc\n"},
    {"CHECK: a\nCHECK-NOT: a\n", "a\n"},
    {"CHECK: a\nCHECK-NOT: a\n", "a a\n"},
    {"CHECK-NOT: a\nCHECK: a\n", "a\n"},
    {"CHECK: x\nCHECK-NOT:\n", "x\n"},
    {"CHECK: a\nCHECK-NOT: b\nCHECK-NEXT: c\n", "a\nc\n"},
    // -DAG.
    {"CHECK-DAG: b\nCHECK-DAG: a\n", "a\nb\n"},
    {"CHECK-DAG: a\nCHECK-DAG: a\n", "a\n"},
    {"CHECK-DAG: a\nCHECK-DAG: a\n", "a\na\n"},
    {"CHECK-DAG: a\nCHECK: b\n", "b\na\n"},
    {"CHECK-DAG: a\nCHECK: b\n", "a\nb\n"},
    {"CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n", "a\nx\nb\n"},
    {"CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n", "x\na\nb\n"},
    {"CHECK-DAG: b\nCHECK-NOT: x\nCHECK-DAG: c\n", "b\nc\nx\n"},
    {"CHECK-DAG: b\nCHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: c\n", "a\nb\nx\nc\n"},
    {"CHECK: start\nCHECK-DAG: y\nCHECK-DAG: x\nCHECK: end\n", "start\nx\ny\nend\n"},
    {"CHECK: start\nCHECK-DAG: y\nCHECK: end\n", "start\nend\ny\n"},
    {"CHECK-DAG: ab\nCHECK-DAG: bc\n", "abc\n"},
    {"CHECK-DAG: a\nCHECK-NEXT: b\n", "a\nb\n"},
    {"CHECK: a\nCHECK-DAG: c\nCHECK-NEXT: b\n", "a\nc\nb\n"},
    {"CHECK: a\nCHECK-DAG: c\nCHECK-NEXT: b\n", "a\nb\nc\n"},
    // -LABEL.
    {"CHECK-LABEL: f1\nCHECK: a\nCHECK-LABEL: f2\nCHECK: b\n", "f1\na\nf2\nb\n"},
    {"CHECK-LABEL: f1\nCHECK: b\nCHECK-LABEL: f2\nCHECK: a\n", "f1\na\nf2\nb\n"},
    {"CHECK-LABEL: f1\nCHECK-NOT: x\nCHECK-LABEL: f2\n", "f1\nx\nf2\n"},
    {"CHECK-LABEL: f1\nCHECK-NOT: x\nCHECK-LABEL: f2\n", "f1\nf2\nx\n"},
    {"CHECK-LABEL: f2\nCHECK-LABEL: f1\n", "f1\nf2\n"},
    {"CHECK-LABEL: f1\nCHECK: a\n", "f1\n"},
    {"CHECK-LABEL: f1\nCHECK: a\nCHECK-LABEL: f2\nCHECK: a\n", "f1\nf2\na\n"},
    {"CHECK-LABEL: [[X:f]]\n", "f\n"},
    {"CHECK-LABEL: {{f[0-9]}}\nCHECK-NEXT: a\n", "f1\na\n"},
    // -COUNT.
    {"CHECK-COUNT-3: a\n", "a\na\na\n"},
    {"CHECK-COUNT-3: a\n", "a\na\n"},
    {"CHECK-COUNT-2: a\nCHECK-NEXT: b\n", "a a\nb\n"},
    {"CHECK-COUNT-0: a\n", "a\n"},
    {"CHECK-COUNT-x: a\n", "a\n"},
    {"CHECK-COUNT-1: a\n", "a\n"},
    // Regexes.
    {"CHECK: {{[0-9]+}}\n", "abc 123\n"},
    {"CHECK: {{[0-9]+}}\n", "abc\n"},
    {"CHECK: a{{b|x}}c\n", "abc\n"},
    {"CHECK: a{{b|x}}c\n", "xc\n"},
    {"CHECK: {{^}}b\n", "ab\nb\n"},
    {"CHECK: {{^}}b\n", "ab\n"},
    {"CHECK: a{{$}}\n", "ab\na\n"},
    {"CHECK: a{{.*}}c\n", "a\nc\n"},
    {"CHECK: a{{[^x]*}}c\n", "a\nc\n"},
    {"CHECK: {{a|ab}}\nCHECK-SAME: c\n", "abc\n"},
    {"CHECK: {{a}}}\n", "a\n"},
    {"CHECK: {{a}}}\n", "a}\n"},
    {"CHECK: {{a\n", "a\n"},
    {"CHECK: {{(}}\n", "(\n"},
    {"CHECK: a.b\n", "axb\n"},
    {"CHECK: (x)\n", "(x)\n"},
    {"CHECK: {{[[:digit:]]+}} items\n", "7 items\n"},
    {"CHECK: a\nCHECK-SAME: {{^}}b\n", "ab\n"},
    {"CHECK{LITERAL}: [[a]] {{b}}\n", "[[a]] {{b}}\n"},
    {"CHECK{LITERAL}: [[a]]\n", "a\n"},
    // Variables.
    {"CHECK: %[[V:[0-9]+]] = add\nCHECK: use %[[V]]\n", "%3 = add\nuse %3\n"},
    {"CHECK: %[[V:[0-9]+]] = add\nCHECK: use %[[V]]\n", "%3 = add\nuse %4\n"},
    {"CHECK: [[V:[a-z]+]]\nCHECK-NEXT: [[V]]\n", "abc\nabc\n"},
    {"CHECK: [[V:[a-z]+]]\nCHECK-NEXT: [[V]]\n", "abc\nab\n"},
    {"CHECK: [[V]]\n", "a\n"},
    {"CHECK: x[[V:.*]]\nCHECK: y[[V]]\n", "x.+*\ny.+*\n"},
    {"CHECK: x[[V:.*]]\nCHECK: y[[V]]\n", "x.+*\nyaaa\n"},
    {"CHECK: [[V:a]]\nCHECK-NOT: [[V]]\nCHECK: b\n", "a\nb\n"},
    {"CHECK: [[V:a]]\nCHECK-NOT: [[V]]\nCHECK: b\n", "a\na\nb\n"},
    {"CHECK: [[$G:g[0-9]]]\nCHECK: [[$G]]\n", "g1\ng1\n"},
    {"CHECK: [[1X:a]]\n", "a\n"},
    {"CHECK: [[X:a]\n", "a\n"},
    {"CHECK: [[X Y:a]]\n", "a\n"},
    {"CHECK: [[V:a]]{{b}}[[W:c]]\nCHECK: [[W]][[V]]\n", "abc\nca\n"},
    // @LINE.
    {"CHECK: line [[@LINE]]\n", "line 1\n"},
    {"\nCHECK: line [[@LINE-1]]\n", "line 1\n"},
    {"CHECK: line [[@LINE+1]]\n", "line 1\n"},
    {"CHECK: line [[#@LINE+2]]\n", "line 3\n"},
    // Prefixes and comments.
    {"A: a\nB: b\n", "a\nb\n", "A,B"},
    {"A: a\nB: x\n", "a\nb\n", "A,B"},
    {"A: a\n", "a\n", "A,B"},
    {"CHECK: x\nA: a\n", "a\n", "A"},
    {"A-NEXT: b\nA: a\n", "a\nb\n", "A"},
    {"A: a\nA-NEXT: b\nB-LABEL: c\n", "a\nb\nc\n", "A,B"},
    {"CHECK: a\nCOM: CHECK: b\n", "a\n"},
    {"CHECK: a\nRUN: CHECK: b\n", "a\n"},
    {"CHECK: a\nCOM CHECK: b\n", "a\n"},
    {"", "a\n"},
    {"just text\n", "a\n"},
    // Corners: trailing -NOT after -DAG, labels around -DAG, redefined
    // variables, brackets and braces next to blocks, empty matches.
    {"CHECK-DAG: a\nCHECK-NOT: b\n", "a\nb\n"},
    {"CHECK-DAG: a\nCHECK-NOT: b\n", "b\na\n"},
    {"CHECK-LABEL: f\nCHECK-DAG: x\nCHECK-LABEL: g\n", "f\ng\nx\n"},
    {"CHECK-LABEL: f\nCHECK-DAG: x\nCHECK-LABEL: g\n", "f\nx\ng\n"},
    {"CHECK: [[X:a+]]\nCHECK: [[X:b+]]\nCHECK: [[X]]\n", "aa\nbb\nbb\n"},
    {"CHECK: [[X:a+]]\nCHECK: [[X:b+]]\nCHECK: [[X]]\n", "aa\nbb\naa\n"},
    {"CHECK: [[[X:a]]]\n", "[a]\n"},
    {"CHECK: {{a}}}}\n", "a}}\n"},
    {"CHECK: {{a*}}\n", "b\n"},
    {"CHECK: a\nCHECK-NEXT: {{^}}b{{$}}\n", "a\nb\n"},
    {"CHECK: a\nCHECK-NEXT: {{^}}b{{$}}\n", "a\nbc\n"},
    {"CHECK: foo\n", "x\tfoo\n"},
    {"CHECK: a\n\nCHECK-NOT: b\nCHECK-NOT: c\nCHECK: d\n", "a c d\n"},
    {"CHECK-COUNT-2: {{a|b}}\n", "a b\n"},
    {"CHECK-COUNT-2: {{a|b}}\nCHECK-NEXT: c\n", "a\nb\nc\n"},
    {"CHECK-EMPTY:\n", "\n"},
    {"CHECK: a\nCHECK-EMPTY:\nCHECK-EMPTY:\n", "a\n\n\n"},
    {"CHECK: a\nCHECK-EMPTY:\nCHECK-EMPTY:\n", "a\n\nb\n\n"},
    {"CHECK-NOT: {{[0-9]}}\n", "abc\n"},
    {"CHECK-NOT: {{[0-9]}}\n", "ab1\n"},
    {"CHECK: [[X:a]]\nCHECK-DAG: [[X]]\n", "a\na\n"},
    {"CHECK: [[X:a]]\nCHECK-DAG: [[X]]\n", "a\nb\n"},
    {"CHECK: a\nCHECK-NEXT:    \n", "a\n\n"},
    {"CHECK: a {{b}} c\n", "a   b \t c\n"},
    {"CHECK: x\nCHECK-SAME: {{.*}}\nCHECK-NEXT: y\n", "x 1\ny\n"},
    {"CHECK-LABEL: a\nCHECK-LABEL: a\n", "a\n"},
    {"CHECK-LABEL: a\nCHECK-LABEL: a\n", "aa\n"},
    {"CHECK: {{(a)(b)}}[[V:c]]\nCHECK: [[V]]\n", "abc\nc\n"},
    {"CHECK-NOT: x\nCHECK-DAG: a\nCHECK-DAG: b\nCHECK-NOT: y\nCHECK: c\n", "b\na\nc\n"},
    {"CHECK-NOT: x\nCHECK-DAG: a\nCHECK-DAG: b\nCHECK-NOT: y\nCHECK: c\n", "b\nx\na\nc\n"},
    {"CHECK-NOT: x\nCHECK-DAG: a\nCHECK-DAG: b\nCHECK-NOT: y\nCHECK: c\n", "b\na\ny\nc\n"},
    {"CHECK-NOT: x\nCHECK-DAG: a\nCHECK-DAG: b\nCHECK-NOT: y\nCHECK: c\n", "x\nb\na\nc\n"},
    // Malformed directives that FileCheck itself rejects.
    {"CHECK:\n", "a\n"},
    {"CHECK-NEXT:\n", "a\n"},
    {"CHECK: a\nCHECK-NOT-NEXT: b\n", "a\n"},
    {"CHECK: a\nCHECK-DAG-NOT: b\n", "a\n"},
};

struct Outcome {
  enum Kind { kPass, kFail, kBadCheckFile } kind;
  std::string detail;
};

const char* Name(Outcome::Kind k) {
  return k == Outcome::kPass ? "pass" : k == Outcome::kFail ? "fail" : "bad check file";
}

Outcome Carve(const Pair& p) {
  CheckOptions options;
  std::string prefixes = p.prefixes;
  for (size_t b = 0; !prefixes.empty() && b <= prefixes.size();) {
    size_t e = prefixes.find(',', b);
    if (e == std::string::npos) e = prefixes.size();
    options.check_prefixes.push_back(prefixes.substr(b, e - b));
    b = e + 1;
  }
  absl::StatusOr<CheckFile> file = CheckFile::Parse("check.txt", p.check, options);
  if (!file.ok()) return {Outcome::kBadCheckFile, std::string(file.status().message())};
  std::string report = file->Match(p.input, "input.txt");
  return {report.empty() ? Outcome::kPass : Outcome::kFail, report};
}

Outcome Llvm(const Pair& p, const std::filesystem::path& dir) {
  std::ofstream(dir / "check.txt", std::ios::binary) << p.check;
  std::ofstream(dir / "input.txt", std::ios::binary) << p.input;
  std::string cmd = std::string(kFileCheck) + " " + (dir / "check.txt").string() +
                    " --input-file " + (dir / "input.txt").string() + " --allow-empty" +
                    (*p.prefixes ? std::string(" --check-prefixes=") + p.prefixes : "") + " > " +
                    (dir / "out.txt").string() + " 2>&1";
  int status = std::system(cmd.c_str());
  std::ifstream in(dir / "out.txt");
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // FileCheck exits 1 for a failed match, and 2 after a "check file" error
  // (no location in the input: the message names check.txt or none).
  if (code == 0) return {Outcome::kPass, out};
  bool input_error = out.find("input.txt:") != std::string::npos ||
                     out.find("expected string not found") != std::string::npos ||
                     out.find("excluded string found") != std::string::npos ||
                     out.find("is not on the") != std::string::npos ||
                     out.find("is on the same line") != std::string::npos ||
                     out.find("undefined variable") != std::string::npos;
  return {input_error ? Outcome::kFail : Outcome::kBadCheckFile, out};
}

TEST(FileCheckDiffTest, AgreesWithLlvmFileCheck) {
  if (!std::filesystem::exists(kFileCheck)) {
    GTEST_SKIP() << kFileCheck << " is not installed (Debian llvm-14-tools; "
                 << "scripts/install-deps.sh installs it)";
  }
  std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "filecheck_diff";
  std::filesystem::create_directories(dir);
  int passes = 0, fails = 0, bad = 0;
  for (const Pair& p : kPairs) {
    Outcome ours = Carve(p), llvm = Llvm(p, dir);
    EXPECT_EQ(Name(ours.kind), std::string(Name(llvm.kind)))
        << "check file:\n"
        << p.check << "input:\n"
        << p.input << "prefixes: " << p.prefixes << "\ncarve said:\n"
        << ours.detail << "FileCheck said:\n"
        << llvm.detail;
    (llvm.kind == Outcome::kPass ? passes : llvm.kind == Outcome::kFail ? fails : bad)++;
  }
  // The table exercises all three outcomes.
  EXPECT_GT(passes, 30);
  EXPECT_GT(fails, 30);
  EXPECT_GT(bad, 8);
}

// A random check file of up to 6 directives and a random input of up to 6
// lines, over an alphabet small enough that matches, near misses and
// overlaps are common.
Pair RandomPair(std::mt19937& rng, std::string& check, std::string& input) {
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  static const char* kWords[] = {"a", "b", "c", "ab", "x"};
  check.clear();
  input.clear();
  const int lines = pick(7);
  for (int i = 0; i < lines; ++i) {
    const int tokens = pick(4);
    for (int t = 0; t < tokens; ++t) input += fmt::format("{}{}", t ? " " : "", kWords[pick(5)]);
    input += "\n";
  }
  static const char* kKinds[] = {"CHECK",       "CHECK",       "CHECK-NEXT",
                                 "CHECK-SAME",  "CHECK-NOT",   "CHECK-DAG",
                                 "CHECK-LABEL", "CHECK-EMPTY", "CHECK-COUNT-2"};
  const int directives = 1 + pick(6);
  bool defined = false;
  for (int i = 0; i < directives; ++i) {
    std::string kind = kKinds[pick(9)];
    std::string pattern;
    switch (pick(kind == "CHECK-LABEL" || kind == "CHECK-NOT" || kind == "CHECK-DAG" ? 6 : 8)) {
      case 0:
        pattern = "{{a|b}}";
        break;
      case 1:
        pattern = "{{[a-c]+}}";
        break;
      case 2:
        pattern = fmt::format("{{{{^}}}}{}", kWords[pick(5)]);
        break;
      case 3:
        pattern = fmt::format("{}{{{{$}}}}", kWords[pick(5)]);
        break;
      case 4:
        pattern = fmt::format("{} {}", kWords[pick(5)], kWords[pick(5)]);
        break;
      case 5:
        pattern = kWords[pick(5)];
        break;
      case 6:
        pattern = "[[V:[a-c]]]";
        defined = true;
        break;
      default:
        pattern = defined ? "[[V]]" : "c";
        break;
    }
    if (kind == "CHECK-EMPTY") pattern.clear();
    check += kind + ": " + pattern + "\n";
  }
  return Pair{check.c_str(), input.c_str()};
}

TEST(FileCheckDiffTest, AgreesOnRandomCheckFiles) {
  if (!std::filesystem::exists(kFileCheck)) {
    GTEST_SKIP() << kFileCheck << " is not installed (Debian llvm-14-tools)";
  }
  std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "filecheck_random";
  std::filesystem::create_directories(dir);
  std::mt19937 rng(20261128);
  int passes = 0, fails = 0;
  for (int i = 0; i < 300; ++i) {
    std::string check, input;
    Pair p = RandomPair(rng, check, input);
    Outcome ours = Carve(p), llvm = Llvm(p, dir);
    ASSERT_EQ(Name(ours.kind), std::string(Name(llvm.kind)))
        << "random pair " << i << ", check file:\n"
        << check << "input:\n"
        << input << "carve said:\n"
        << ours.detail << "FileCheck said:\n"
        << llvm.detail;
    (llvm.kind == Outcome::kPass ? passes : fails)++;
  }
  EXPECT_GT(passes, 30);
  EXPECT_GT(fails, 30);
}

}  // namespace
}  // namespace carve::filecheck
