// ConvertLayout prints back as the pipeline text that makes it (what
// --print-ir-after-all, --pass-timing and the REPL's `steps` show): the
// global layouts only when given, a per-op kernel layout only when the entry
// named one, defaults left out.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/layout/convert_layout.h"
#include "passes/pass_registry.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

std::string Described(std::string_view pipeline) {
  absl::StatusOr<PassPtr> pass = ParsePipeline(pipeline);
  EXPECT_TRUE(pass.ok()) << pipeline << ": " << RenderStatus(pass.status());
  return pass.ok() ? (*pass)->Describe() : "";
}

TEST(ConvertLayoutDescribe, CanonicalTextRoundTrips) {
  for (std::string_view text : {
           "ConvertLayout(NHWC)",
           "ConvertLayout(NHWC,HWIO)",
           "ConvertLayout(NHWC,ops=[nn.conv2d,nn.max_pool2d])",
           "ConvertLayout(NHWC,skip_layers=[0,2])",
           "ConvertLayout(layouts=[nn.max_pool2d:NHWC])",
           "ConvertLayout(layouts=[nn.conv2d:NHWC:HWIO,nn.max_pool2d:NHWC])",
           "ConvertLayout(layouts=[nn.deformable_conv2d:NHWC:default])",
           "ConvertLayout(NCHW,layouts=[nn.max_pool2d:NHWC])",
       }) {
    EXPECT_EQ(Described(text), text);
    EXPECT_EQ(Described(Described(text)), text) << "re-parsed";
  }
}

TEST(ConvertLayoutDescribe, DefaultsAreLeftOut) {
  // Before: "ConvertLayout(NHWC,default)" and "ConvertLayout(,default)
  // nn.max_pool2d:NHWC:default".
  EXPECT_EQ(Described("ConvertLayout(data_layout=NHWC,kernel_layout=default,ops=[nn.conv2d])"),
            "ConvertLayout(NHWC)");
  EXPECT_EQ(Described("ConvertLayout(layouts=[nn.max_pool2d:NHWC])"),
            "ConvertLayout(layouts=[nn.max_pool2d:NHWC])");
}

TEST(ConvertLayoutDescribe, RecordsWhetherAKernelLayoutWasGiven) {
  absl::StatusOr<OpLayout> bare = ParseOpLayout("nn.conv2d:NHWC");
  absl::StatusOr<OpLayout> named = ParseOpLayout("nn.conv2d:NHWC:default");
  ASSERT_TRUE(bare.ok() && named.ok());
  EXPECT_FALSE(bare->kernel_given);
  EXPECT_TRUE(named->kernel_given);
  // Both mean TVM's per-op default kernel layout.
  EXPECT_EQ(bare->kernel, "default");
  EXPECT_EQ(named->kernel, "default");
}

TEST(ConvertLayoutDescribe, BackendRecipeWithADepthwiseKernelLayout) {
  // ACL's optimize hook: NHWC with OHWI kernels, IHWO for depthwise.
  DesiredLayout acl{"NHWC", "OHWI", "IHWO"};
  EXPECT_EQ(DescribeConvertLayout(acl), "ConvertLayout(NHWC,OHWI,depthwise_kernel_layout=IHWO)");
}

}  // namespace
}  // namespace carve::testing
