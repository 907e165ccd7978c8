// TargetRegistry's load errors: a target whose spec failed to load is
// reported with that failure (the spec file's diagnostics), not as an unknown
// target, including through a pipeline's pass arguments.
#include "passes/byoc/target.h"

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_registry.h"
#include "support/diagnostics.h"
#include "support/source.h"

namespace carve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// An error at the end of the first line of `target`.pat (column 27 for
// "mine", 41 for "broken_spec_target").
absl::Status SpecFileError(const std::string& target) {
  std::string text = fmt::format("backend {} {{ ops nn.relu\n}}\n", target);
  uint32_t file = SourceManager::Global().Add(target + ".pat", text);
  uint32_t at = static_cast<uint32_t>(text.find('\n'));
  return SpanError(Span{file, at, at + 1}, "expected ';' after the op list");
}

TEST(TargetRegistryTest, GetReportsTheLoadErrorUntilTheTargetIsRegistered) {
  TargetRegistry registry;
  registry.ReportLoadError("mine", SpecFileError("mine"));
  absl::StatusOr<TargetSpecPtr> spec = registry.Get("mine");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(RenderStatus(spec.status()), HasSubstr("mine.pat:1:27: error: expected ';'"));
  EXPECT_THAT(RenderStatus(spec.status()), Not(HasSubstr("unknown target")));
  EXPECT_THAT(std::string(registry.Get("other").status().message()),
              HasSubstr("unknown target 'other'"));

  registry.Register(std::make_shared<TargetSpec>("mine"));
  EXPECT_TRUE(registry.Get("mine").ok());
}

TEST(TargetRegistryTest, APipelineKeepsTheSpecFilesLocationAndNotesThePass) {
  TargetRegistry::Global().ReportLoadError("broken_spec_target",
                                           SpecFileError("broken_spec_target"));
  absl::StatusOr<PassPtr> pass = ParsePipeline("InferType,MergeComposite(broken_spec_target)");
  ASSERT_FALSE(pass.ok());
  std::string text = RenderStatus(pass.status());
  EXPECT_THAT(text, HasSubstr("broken_spec_target.pat:1:41: error: expected ';'"));
  EXPECT_THAT(text, HasSubstr("<pipeline>:1:26: note: while building MergeComposite"));
}

}  // namespace
}  // namespace carve
