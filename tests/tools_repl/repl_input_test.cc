// What a user types into `carve repl` (issue 14): file names with spaces
// (quoted, or typed as they are), control bytes in a command never echoed
// raw, and backend names: completion offers, and `partition` / `compare` /
// `report` take, the backends `carve partition --backend` takes.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"
#include "tools/repl/commands.h"
#include "tools/repl/completion.h"
#include "tools/repl/session.h"

namespace carve::repl {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int code;
  std::string out, err;
};

Outcome Repl(const std::string& script) {
  std::istringstream in(script);
  std::ostringstream out, err;
  cli::Env env = cli::RealEnv();
  env.in = &in;
  env.out = &out;
  env.err = &err;
  int code = cli::RunCarve({"repl", "--no-timing"}, env);
  return {code, out.str(), err.str()};
}

constexpr const char* kModule =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 8), float32]) {\n"
    "  nn.relu(%x)\n"
    "}\n";

class ReplInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("carve repl input " +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "my model.relay") << kModule;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(ReplInputTest, LoadTakesAPathWithSpacesQuotedOrNot) {
  const std::string path = Path("my model.relay");  // the folder has spaces too
  for (const std::string& typed : {path, "\"" + path + "\"", "'" + path + "'", path + "   "}) {
    Outcome r = Repl("load " + typed + "\nprint\n");
    EXPECT_EQ(r.code, 0) << typed << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("nn.relu(%x)")) << typed;
  }
  // Options still follow the path.
  Outcome r = Repl("load " + path + " --frob\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown option '--frob'"));
  // A path in pieces is ambiguous: one error, no guess.
  r = Repl("load \"" + path + "\" extra\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("expected one file: load FILE"));
  r = Repl("load a.relay --shape x=1 b.relay\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("expected one file: load FILE"));
  // A quoted name starting with '-' is a file, not an option.
  r = Repl("load '-nosuch.relay'\n");
  EXPECT_THAT(r.err, HasSubstr("cannot read '-nosuch.relay'"));
}

TEST_F(ReplInputTest, SaveAndPatternsTakePathsWithSpaces) {
  const std::string out = Path("saved copy.relay");
  const std::string pat = Path("my rules.pat");
  std::ofstream(pat) << "backend spaced {\n  op nn.relu;\n}\n";
  Outcome r = Repl("load " + Path("my model.relay") + "\nsave " + out + "\npatterns " + pat +
                   "\nsave --repro " + Path("repro copy.relay") + "\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_TRUE(std::filesystem::exists(Path("repro copy.relay")));
  EXPECT_THAT(r.out, HasSubstr("1 backend spaced"));
  r = Repl("load " + Path("my model.relay") + "\nsave --repro --repro x.relay\n");
  EXPECT_THAT(r.err, HasSubstr("repeated option '--repro'"));
}

TEST_F(ReplInputTest, ControlBytesInACommandAreEscaped) {
  Outcome r = Repl(std::string("fr\x1b[31mob\x01 x\n"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: unknown command 'fr\\x1b[31mob\\x01'"));
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x01'), std::string::npos) << r.err;
  // In a pipeline: the message and the echoed pipeline line are escaped.
  r = Repl("load " + Path("my model.relay") + "\npass Infer\x02Type\n");
  EXPECT_THAT(r.err, HasSubstr("unknown pass 'Infer\\x02Type'"));
  EXPECT_THAT(r.err, HasSubstr("  Infer\\x02Type\n  ^\n"));
  EXPECT_EQ(r.err.find('\x02'), std::string::npos) << r.err;
}

std::vector<std::string> Texts(const Completion& c) {
  std::vector<std::string> out;
  for (const Candidate& k : c.candidates) out.push_back(k.text);
  return out;
}

TEST_F(ReplInputTest, BackendCompletionOffersOnlyBackends) {
  std::ostringstream out;
  cli::Env env = cli::RealEnv();
  env.out = &out;
  Session s(env, {});
  for (const char* line : {"partition ", "partition dnnl,", "compare ", "report "}) {
    std::vector<std::string> offered = Texts(Complete(s, line));
    EXPECT_THAT(offered, Contains("dnnl")) << line;
    EXPECT_THAT(offered, Contains("tensorrt")) << line;
    EXPECT_THAT(offered, Not(Contains("dnnl_like"))) << line;
    EXPECT_THAT(offered, Contains("byoc_target")) << line;  // the seed demo's flow
  }
  EXPECT_EQ(Texts(Complete(s, "partition dnnl_")), std::vector<std::string>{});
  // Pass arguments name targets.
  EXPECT_THAT(Texts(Complete(s, "pass MergeComposite(dnn")), Contains("dnnl"));
}

TEST_F(ReplInputTest, BackendCommandsTakeTheSameNames) {
  const std::string load = "load " + Path("my model.relay") + "\n";
  Outcome r = Repl(load + "partition dnnl_like\n");
  // (Other tests' pattern files may have added names after these.)
  EXPECT_THAT(r.err, HasSubstr("unknown backend 'dnnl_like' (known: bnns, arm_compute_lib, "
                               "nnapi, dnnl, tensorrt"));
  r = Repl(load + "partition dnnl,dnnl\n");
  EXPECT_THAT(r.err, HasSubstr("backend 'dnnl' is named twice in 'dnnl,dnnl'"));
  r = Repl(load + "compare dnnl_like\n");
  EXPECT_THAT(r.err, HasSubstr("unknown backend 'dnnl_like'"));
  r = Repl(load + "report dnnl_like\n");
  EXPECT_THAT(r.err, HasSubstr("unknown backend 'dnnl_like'"));
  // A pattern file's backend is one more name.
  std::ofstream(Path("b.pat")) << "backend fromfile {\n  op nn.relu;\n}\n";
  r = Repl(load + "patterns " + Path("b.pat") + "\npartition fromfile\n");
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
}  // namespace carve::repl
