// Which invocations re-execute carve with OpenMP's passive wait policy
// (tools/cli/openmp_wait_policy.h); tests/package/openmp_wait_policy.sh
// checks the re-execution itself.
#include "tools/cli/openmp_wait_policy.h"

#include "gtest/gtest.h"

namespace carve::cli {
namespace {

TEST(OpenMpWaitPolicy, RunWithMoreThanOneThreadAndTheRepl) {
  EXPECT_TRUE(MayRunOpenMpThreads({"run", "m.relay", "--threads", "2"}));
  EXPECT_TRUE(MayRunOpenMpThreads({"run", "--threads=4", "m.relay"}));
  EXPECT_TRUE(MayRunOpenMpThreads({"repl"}));
  EXPECT_TRUE(MayRunOpenMpThreads({"repl", "m.relay"}));
}

TEST(OpenMpWaitPolicy, OneThreadAndOtherCommandsRunAsTheyAre) {
  EXPECT_FALSE(MayRunOpenMpThreads({}));
  EXPECT_FALSE(MayRunOpenMpThreads({"run", "m.relay"}));
  EXPECT_FALSE(MayRunOpenMpThreads({"run", "m.relay", "--threads", "1"}));
  EXPECT_FALSE(MayRunOpenMpThreads({"run", "m.relay", "--threads=1"}));
  EXPECT_FALSE(MayRunOpenMpThreads({"run", "m.relay", "--threads"}));  // a usage error, as is
  EXPECT_FALSE(MayRunOpenMpThreads({"fmt", "m.relay", "--threads", "2"}));
  EXPECT_FALSE(MayRunOpenMpThreads({"partition", "m.relay", "--backend", "dnnl"}));
}

}  // namespace
}  // namespace carve::cli
