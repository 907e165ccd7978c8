// `carve viz` on a graph far above --max-nodes: a 100,000-op chain of
// nn.relu (issue 19: `--format term` hung and took 12 GB, its indentation
// grew with the depth). The terminal tree is linear in the graph's size,
// the automatic summary of a graph that stays on the host is one box, and
// SVG/HTML refuse a graph Graphviz cannot lay out in reasonable time
// instead of running for hours. About 3 s in all.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"
#include "tools/cli/viz_graph.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

constexpr int kChain = 100000;

// The name of a file of this test (CTest runs the tests of this binary in
// parallel).
std::string TestFile(const std::string& ext) {
  return (std::filesystem::path(testing::TempDir()) /
          (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ext))
      .string();
}

// A module whose @main is a chain of kChain nn.relu calls.
std::string ChainFile() {
  std::string path = TestFile(".relay");
  std::ofstream f(path);
  f << "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 4), float32]) {\n";
  std::string prev = "%x";
  for (int i = 0; i < kChain; ++i) {
    f << fmt::format("  %{} = nn.relu({});\n", i, prev);
    prev = fmt::format("%{}", i);
  }
  f << "  " << prev << "\n}\n";
  return path;
}

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

// Runs `carve viz CHAIN EXTRA... -o OUT`; `out` is OUT's text.
Outcome Viz(std::vector<std::string> extra, const std::string& ext = ".out") {
  const std::string path = TestFile(ext);
  std::filesystem::remove(path);
  std::ostringstream err;
  Env env = RealEnv();
  env.err = &err;
  std::vector<std::string> args = {"viz", ChainFile()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"-o", path});
  int code = RunCarve(args, env);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return {code, text.str(), err.str()};
}

TEST(VizLargeTest, TermTreeOfADeepChainIsLinear) {
  Outcome r = Viz({"--format", "term", "--max-nodes", "1000000"});
  ASSERT_EQ(r.code, 0) << r.err;
  // Every node once (plus the few where the indentation restarts), each
  // line short: quadratic output was 15 GB here.
  EXPECT_LT(r.out.size(), 100u * kChain);
  size_t longest = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) longest = std::max(longest, line.size());
  EXPECT_LT(longest, 120u);
  EXPECT_THAT(r.out, HasSubstr("%0 nn.relu [host]"));
  EXPECT_THAT(r.out, HasSubstr("`--%x input [host]"));
  // Where the indentation stops, the subtree continues as a tree of its own.
  EXPECT_THAT(r.out, HasSubstr("(inputs below)\n%99983 nn.relu [host]\n"));
}

TEST(VizLargeTest, SummaryOfAHostChainIsOneBox) {
  Outcome r = Viz({"--format", "term"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "%0..%99998 100000 host ops: nn.relu [host]\n");
  EXPECT_THAT(r.err, HasSubstr("100001 nodes is more than --max-nodes 400"));
  r = Viz({}, ".html");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("100000 host ops: nn.relu"));
  EXPECT_LT(r.out.size(), 200000u);
}

TEST(VizLargeTest, GraphvizRefusesWhatItCannotLayOut) {
  Outcome r = Viz({"--format", "svg", "--max-nodes", "1000000"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("100001 nodes: more than Graphviz lays out in reasonable time"));
  EXPECT_THAT(r.err, HasSubstr("--around %N --depth K"));
}

// Summarize: with more boxes than allowed, a chain of host ops between two
// regions becomes one box; a host op read by two boxes ends its chain.
TEST(VizSummaryTest, HostChainsMergeUpToAFork) {
  viz::Graph g;
  g.clusters = {{"r0", true, "dnnl", -1}, {"r1", true, "dnnl", -1}};
  auto add = [&](std::string name, std::string op, int cluster) {
    viz::Node n;
    n.name = std::move(name);
    n.label = std::move(op);
    n.cluster = cluster;
    n.target = cluster >= 0 ? "dnnl" : "";
    n.is_op = true;
    g.nodes.push_back(n);
    return static_cast<int>(g.nodes.size()) - 1;
  };
  int a = add("%0", "nn.conv2d", 0);
  int b = add("%1", "argmax", -1);
  int c = add("%2", "cast", -1);
  int d = add("%3", "nn.relu", -1);
  int e = add("%4", "nn.conv2d", 1);
  int f = add("%5", "add", -1);
  g.edges = {{a, b, "", 4}, {b, c, "", 4}, {c, d, "", 4}, {d, e, "", 4}, {d, f, "", 4},
             {e, f, "", 4}};
  g.output = f;
  // Few enough boxes: every host op keeps its own.
  EXPECT_EQ(viz::Summarize(g, 6).nodes.size(), 6u);
  viz::Graph s = viz::Summarize(g, 5);
  std::vector<std::string> labels;
  for (const viz::Node& n : s.nodes) labels.push_back(n.name + " " + n.label);
  EXPECT_THAT(labels, ::testing::ElementsAre("r0 1 ops", "%1..%3 3 host ops: argmax, cast, nn.relu",
                                             "r1 1 ops", "%5 add"));
  EXPECT_EQ(s.output, 3);
  EXPECT_EQ(s.edges.size(), 4u);
}

}  // namespace
}  // namespace carve::cli
