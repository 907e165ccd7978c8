// `carve viz`, `carve why` and `carve partition --report` give the same
// reason for every host op of the TVM-printed corpus, with every built-in
// backend, through the command line as a user runs them: each named host op
// of the terminal tree (`%N op [host] -- backend: reason`) is asked about
// with `why --backend B --at %N`, once per distinct (op, reason) of a file
// and backend, and why must print that reason; the report must list the op
// with it among the ops not offloaded. (PlacementCorpusTest checks the record both read, and
// `partition --report` prints, does not depend on the copy it was built
// from.) About 5 s.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backends/specs.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome Carve(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Env env = RealEnv();
  env.out = &out;
  env.err = &err;
  int code = RunCarve(args, env);
  return {code, out.str(), err.str()};
}

struct HostOp {
  std::string name, op, reason;
};

// The named host ops of a terminal tree: "%3 argmax [host] -- dnnl:
// unsupported op  : (1, 8, 8) int32", drawn after tree connectors.
std::vector<HostOp> HostOps(const std::string& tree) {
  std::vector<HostOp> out;
  std::istringstream lines(tree);
  for (std::string line; std::getline(lines, line);) {
    size_t start = line.find_first_not_of("|`- ");
    if (start == std::string::npos || (line[start] != '%' && line[start] != '@')) continue;
    size_t host = line.find(" [host] -- ", start);
    if (host == std::string::npos) continue;
    size_t space = line.find(' ', start);
    HostOp h{line.substr(start, space - start), line.substr(space + 1, host - space - 1), ""};
    if (h.op.find(' ') != std::string::npos) continue;  // a summary box
    std::string reason = line.substr(host + 11);
    for (const char* tail : {" (see above)", " (see below)", " (inputs below)"}) {
      if (reason.ends_with(tail)) reason.resize(reason.size() - std::string(tail).size());
    }
    size_t edge = reason.find("  : ");
    h.reason = edge == std::string::npos ? reason : reason.substr(0, edge);
    out.push_back(std::move(h));
  }
  return out;
}

// Whether `why` prints `reason` as a verdict line: "  dnnl: unsupported op",
// where why may add the partition a pruned op was in ("... (partition
// tvmgen_default_dnnl_main_4)"), which the picture leaves out.
bool Says(const std::string& why, const std::string& reason) {
  std::istringstream lines(why);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  " + reason)) continue;
    std::string rest = line.substr(reason.size() + 2);
    if (rest.empty() || rest.starts_with(" (partition ")) return true;
  }
  return false;
}

// Whether `row` is `reason` with some of its numbers given as a list ("64
// or 128", "1, 2 or 3", "0 (x4) or 1 (x4)") that holds the reason's number.
bool SameButFigures(const std::string& row, const std::string& reason) {
  size_t i = 0, j = 0;
  while (i < row.size() && j < reason.size()) {
    if (!std::isdigit(static_cast<unsigned char>(reason[j]))) {
      if (row[i] != reason[j]) return false;
      ++i, ++j;
      continue;
    }
    size_t end = reason.find_first_not_of("0123456789.", j);
    std::string number = reason.substr(j, end == std::string::npos ? end : end - j);
    j = end == std::string::npos ? reason.size() : end;
    // The row's list of numbers at i: "64 or 128", "1, 2 or 3".
    bool found = false;
    while (i < row.size() && std::isdigit(static_cast<unsigned char>(row[i]))) {
      size_t stop = row.find_first_not_of("0123456789.", i);
      found |= row.substr(i, stop == std::string::npos ? stop : stop - i) == number;
      i = stop == std::string::npos ? row.size() : stop;
      // "arg 0 (x4) or 1 (x4)": how many ops each figure is of.
      if (row.compare(i, 3, " (x") == 0) {
        size_t close = row.find(')', i);
        if (close != std::string::npos) i = close + 1;
      }
      for (const char* sep : {" or ", ", "}) {
        if (row.compare(i, std::string(sep).size(), sep) == 0 && i + std::string(sep).size() < row.size() &&
            std::isdigit(static_cast<unsigned char>(row[i + std::string(sep).size()]))) {
          i += std::string(sep).size();
          break;
        }
      }
    }
    if (!found) return false;
  }
  return i == row.size() && j == reason.size();
}

// Whether `report` (`partition --report`) lists `op` among the ops not
// offloaded with `reason` (the verdict without its "backend: "): a row
// "    nn.softmax    1  pruned: ...". A row counts the ops of one failure,
// so it leaves out what each node was instead (", got a call of ..."): a
// reason that is the row's plus such a tail is the same reason.
bool Lists(const std::string& report, const std::string& op, const std::string& reason) {
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("    " + op + " ")) continue;
    std::string rest = line.substr(4 + op.size());
    size_t start = rest.find_first_not_of(" 0123456789");
    if (start == std::string::npos || start < 3 || rest.substr(start - 2, 2) != "  ") continue;
    std::string row = rest.substr(start);
    if (row == reason || reason.starts_with(row + ", got ")) return true;
    // A row of several ops lists each one's figures ("static cost 512 or
    // 3136", "arg 0 (x4) or 1 (x4)"): the reason must be the row with one.
    if (SameButFigures(row, reason)) return true;
  }
  return false;
}

TEST(VizWhyCorpusTest, SameReasonForEveryHostOp) {
  std::filesystem::path dir = std::filesystem::path(CARVE_SHARED_DIR) / "corpus";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no shared corpus at " << dir;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".relay") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  int asked = 0, drawn = 0;
  // viz writes its picture to -o (or the process's standard output).
  const std::string tree =
      (std::filesystem::path(testing::TempDir()) / "viz_why_corpus.txt").string();
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const bool annotated = text.str().find("annotation.compiler_begin") != std::string::npos;
    for (std::string_view backend : BuiltinBackendNames()) {
      const std::string b(backend);
      Outcome viz = Carve({"viz", file, "--backend", b, "--format", "term", "--max-nodes",
                           "1000000", "-o", tree});
      // Only files saved mid-pipeline (annotated for TVM's demo target) are
      // refused, as bad input.
      if (viz.code != 0) {
        EXPECT_TRUE(annotated && viz.code == 1) << file << " " << b << ": " << viz.err;
        continue;
      }
      ++drawn;
      std::ifstream drawn_in(tree);
      std::stringstream drawn_text;
      drawn_text << drawn_in.rdbuf();
      viz.out = drawn_text.str();
      // The report of the same partitioning, the third reader of the record.
      Outcome report = Carve({"partition", file, "--backend", b, "--report", "-o", tree});
      ASSERT_EQ(report.code, 0) << file << " " << b << ": " << report.err;
      std::ifstream report_in(tree);
      std::stringstream report_text;
      report_text << report_in.rdbuf();
      report.out = report_text.str();
      std::set<std::pair<std::string, std::string>> seen;
      for (const HostOp& h : HostOps(viz.out)) {
        if (!seen.insert({h.op, h.reason}).second) continue;
        ASSERT_TRUE(h.reason.starts_with(b + ": ")) << file << " " << h.name << ": " << h.reason;
        EXPECT_TRUE(Lists(report.out, h.op, h.reason.substr(b.size() + 2)))
            << file << " " << b << " " << h.name << " " << h.op << "\nviz: " << h.reason
            << "\nreport:\n" << report.out;
        Outcome why = Carve({"why", file, "--backend", b, "--at", h.name});
        ASSERT_EQ(why.code, 0) << file << " " << b << " " << h.name << ": " << why.err;
        EXPECT_TRUE(Says(why.out, h.reason))
            << file << " " << b << " " << h.name << " " << h.op << "\nviz: " << h.reason
            << "\nwhy:\n" << why.out;
        ++asked;
      }
    }
  }
  EXPECT_GT(drawn, static_cast<int>(files.size()) * 4);
  EXPECT_GT(asked, 100);
  std::cout << asked << " host ops asked about, " << drawn << " pictures\n";
}

}  // namespace
}  // namespace carve::cli
