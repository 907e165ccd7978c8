// Every error path of every command escapes the user's text (issue 14):
// messages written directly by a command (`carve partition: unknown
// --report format '...'`), not only rendered diagnostics, quote option
// values, names and paths, and a control byte, a bidi override or a
// malformed UTF-8 byte in them must reach the terminal as an escape
// (support/printable.h), whichever command wrote it. carve's standard error
// is a PrintableStreamBuf for the whole command (tools/cli/cli.cc).
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/printable.h"
#include "tests/tools_cli/cli_test_dir.h"
#include "tools/cli/cli.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

// ESC (a terminal's escape sequence), U+202E RIGHT-TO-LEFT OVERRIDE (it
// reverses the text shown after it) and a byte that is not UTF-8.
const std::string kHostile = std::string("a\x1b[2J") + "\xe2\x80\xae" + "b\xff";
const std::string kShown = "a\\x1b[2J\\u202eb\\xff";

// No raw byte of kHostile's three hazards is in `text`.
void ExpectNoRawBytes(const std::string& text, const std::string& what) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << what << ": " << text;
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << what << ": " << text;
  EXPECT_EQ(text.find('\xff'), std::string::npos) << what << ": " << text;
}

class EscapedErrorsTest : public CliTestDir {
 protected:
  EscapedErrorsTest() : CliTestDir("carve_escaped_") {}
  void SetUp() override {
    CliTestDir::SetUp();
    file_ = Write("m.relay", kReluModule);
  }
  std::string file_;
};

TEST_F(EscapedErrorsTest, EveryCommandsDirectMessagesAreEscaped) {
  const std::string missing = (dir_ / kHostile).string();
  struct Case {
    std::vector<std::string> args;
    int code;
  };
  const std::vector<Case> cases = {
      {{"partition", file_, "--backend", "dnnl", "--report=" + kHostile}, kExitUsage},
      {{"partition", file_, "--backend", kHostile}, kExitUsage},
      {{"opt", file_, "-p", "InferType", "--print-ir-before", kHostile}, kExitUsage},
      {{"opt", file_, "-p", "InferType", "--opt-level", kHostile}, kExitUsage},
      {{"opt", file_, "-p", kHostile}, kExitUsage},
      {{"partition", file_, "--backend", "dnnl", "--disabled-pass", kHostile}, kExitUsage},
      {{"run", file_, "--seed", kHostile}, kExitUsage},
      {{"run", file_, "--threads", kHostile}, kExitUsage},
      {{"run", file_, "--input-dist", kHostile}, kExitUsage},
      {{"run", file_, "--input", kHostile}, kExitUsage},
      {{"run", file_, "--compare", "dnnl", "--rtol", kHostile}, kExitUsage},
      {{"run", file_, "--compare", kHostile}, kExitUsage},
      {{"codegen", file_, "--backend", kHostile, "-o", dir_.string()}, kExitUsage},
      {{"test", file_, "--shared", kHostile}, kExitUsage},
      {{"test", missing}, kExitUserError},
      {{"reduce", file_, "--until", "carve check {}", "--timeout", kHostile}, kExitUsage},
      {{"reduce", file_, "--until", kHostile}, kExitUsage},
      {{"import", missing}, kExitUserError},
      {{"import", file_, "--shape", kHostile}, kExitUsage},
      {{"match", kHostile, file_}, kExitUserError},
      {{"check", missing}, kExitUserError},
      {{"fmt", missing}, kExitUserError},
      {{"equal", file_, missing}, kExitUserError},
      {{"run", missing}, kExitUserError},
      {{"help", kHostile}, kExitUsage},
      {{"fmt", file_, "--" + kHostile}, kExitUsage},
  };
  for (const Case& c : cases) {
    std::string what;
    for (const std::string& a : c.args) what += EscapeNonPrintable(a) + " ";
    CliResult r = Run(c.args);
    EXPECT_EQ(r.code, c.code) << what << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << what;
    ExpectNoRawBytes(r.err, what);
  }
  // The value is shown, escaped, where it was quoted.
  CliResult r = Run({"partition", file_, "--backend", "dnnl", "--report=" + kHostile});
  EXPECT_THAT(r.err, HasSubstr("unknown --report format '" + kShown + "'"));
  r = Run({"opt", file_, "-p", "InferType", "--print-ir-before", kHostile});
  EXPECT_THAT(r.err, HasSubstr("'" + kShown + "'"));
}

// A failing golden file's report shows its source lines: a binary file
// given to `carve test` echoed them raw.
TEST_F(EscapedErrorsTest, GoldenReportOfABinaryFileIsEscaped) {
  std::string bin = Write("bin.test", "\x1b]0;title\x07\xff" + kHostile + "\n");
  CliResult r = Run({"test", bin});
  EXPECT_EQ(r.code, kExitUserError) << r.err;
  EXPECT_THAT(r.err, HasSubstr("this case has no RUN line"));
  ExpectNoRawBytes(r.err, "carve test");
  EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
}

// Line breaks and tabs are a message's own layout and pass; printable
// UTF-8 (a user's file named in their language) passes whole.
TEST(PrintableStreamBufTest, KeepsLayoutAndPrintableUtf8) {
  std::ostringstream sink;
  {
    PrintableStreamBuf buf(sink);
    std::ostream os(&buf);
    os << "caf\xc3\xa9.relay:1:2: error: x\n\tnote\n";
  }
  EXPECT_EQ(sink.str(), "caf\xc3\xa9.relay:1:2: error: x\n\tnote\n");
}

// A character written in two pieces is one character, not two bad bytes;
// one left incomplete at the end is escaped byte by byte.
TEST(PrintableStreamBufTest, JoinsACharacterSplitAcrossWrites) {
  std::ostringstream sink;
  {
    PrintableStreamBuf buf(sink);
    std::ostream os(&buf);
    os << "\xe2\x80";
    os.flush();
    os << "\xae|\xe2\x82\xac|\xf0\x9f";
    os << "\x98\x80|\xe2";
  }
  EXPECT_EQ(sink.str(), "\\u202e|\xe2\x82\xac|\xf0\x9f\x98\x80|\\xe2");
}

TEST(PrintableStreamBufTest, EscapesControlBytesWrittenOneByOne) {
  std::ostringstream sink;
  {
    PrintableStreamBuf buf(sink);
    std::ostream os(&buf);
    for (char c : std::string("a\x1b[0m\x7f\x00z", 8)) os.put(c);
  }
  EXPECT_EQ(sink.str(), "a\\x1b[0m\\x7f\\x00z");
}

}  // namespace
}  // namespace carve::cli
