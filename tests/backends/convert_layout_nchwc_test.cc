// ConvertLayout to blocked layouts (NCHW<n>c, passes/layout/conv_rules.cc)
// computes what the module computed: each case is converted, printed and
// parsed back (so layout_transform and nn.contrib_conv2d_NCHWc type from
// text), then both modules run on the same random inputs. The modules
// TVM's tests expect are checked line by line in
// tests/golden/byoc/tvm/convert_layout_nchwc.relay. (In tests/backends/:
// it runs the interpreter's kernels.)
#include <string>
#include <string_view>
#include <vector>

#include "passes/layout/convert_layout.h"
#include "tests/backends/backends_test_util.h"

namespace carve::testing {
namespace {

// Runs ConvertLayout with `layouts` (op:data:kernel entries) on `text`,
// expects `converts` occurrences of `needle` (by default, calls of
// nn.contrib_conv2d_NCHWc) in the result, and compares both modules'
// outputs on random inputs.
void ExpectSameValues(std::string_view text, const std::vector<std::string>& layouts,
                      int converts, std::string_view needle = "nn.contrib_conv2d_NCHWc(") {
  Module before = ParseTyped(text);
  DesiredLayout desired;
  desired.data = "";
  desired.ops = {};
  for (const std::string& entry : layouts) {
    absl::StatusOr<OpLayout> parsed = ParseOpLayout(entry);
    ASSERT_TRUE(parsed.ok()) << RenderStatus(parsed.status());
    desired.per_op.push_back(*parsed);
  }
  absl::StatusOr<PassPtr> pass = ConvertLayout(desired);
  ASSERT_TRUE(pass.ok()) << RenderStatus(pass.status());
  Module converted = ParseTyped(Show(before));
  absl::StatusOr<bool> changed = RunPass(**pass, converted);
  ASSERT_TRUE(changed.ok()) << RenderStatus(changed.status());
  std::string printed = Show(converted);
  int found = 0;
  for (size_t at = printed.find(needle); at != std::string::npos;
       at = printed.find(needle, at + 1)) {
    ++found;
  }
  EXPECT_EQ(found, converts) << printed;
  Module reparsed = ParseTyped(printed);
  std::vector<NDArray> inputs = RandomInputs(before, 7);
  std::vector<NDArray> want = RunMain(before, inputs, nullptr);
  std::vector<NDArray> got = RunMain(reparsed, inputs, nullptr);
  ASSERT_EQ(want.size(), got.size()) << printed;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_LE(CloseRatio(got[i], want[i], 1e-5, 1e-5), 1.0) << "output " << i << "\n" << printed;
  }
}

// TVM's test_resnet_convert_layout_nchwc (smaller input).
constexpr std::string_view kResnet = R"(
def @main(%x: Tensor[(1, 3, 32, 32), float32], %weight1: Tensor[(64, 3, 7, 7), float32], %weight2: Tensor[(64, 64, 3, 3), float32], %weight3: Tensor[(64, 64, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight1, strides=[2, 2], padding=[3, 3, 3, 3], channels=64, kernel_size=[7, 7]);
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]);
  %3 = nn.conv2d(%2, %weight2, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);
  %4 = nn.relu(%3);
  %5 = nn.conv2d(%2, %weight3, padding=[0, 0, 0, 0], channels=64, kernel_size=[1, 1]);
  %6 = nn.relu(%5);
  %7 = add(%4, %6);
  nn.global_max_pool2d(%7)
})";

TEST(ConvertLayoutNchwc, ResnetBlock1) {
  ExpectSameValues(kResnet, {"nn.conv2d:NCHW1c:OIHW1i1o"}, 3);
}

TEST(ConvertLayoutNchwc, ResnetBlocks4To16) {
  // The first conv2d reads %x, whose 3 channels no block divides: it stays.
  ExpectSameValues(kResnet, {"nn.conv2d:NCHW4c:OIHW4i4o"}, 2);
  ExpectSameValues(kResnet, {"nn.conv2d:NCHW8c:OIHW8i8o"}, 2);
  ExpectSameValues(kResnet, {"nn.conv2d:NCHW16c:OIHW16i16o"}, 2);
}

TEST(ConvertLayoutNchwc, SplitBlocking) {
  ExpectSameValues(R"(
def @main(%x: Tensor[(1, 32, 10, 10), float32], %weight: Tensor[(32, 32, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[0, 0, 0, 0], channels=32, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = split(%1, indices_or_sections=[16], axis=1);
  %3 = split(%1, indices_or_sections=2, axis=1);
  (%2.0, %2.1, %3.1)
})",
                   {"nn.conv2d:NCHW4c:OIHW4o"}, 1);
}

TEST(ConvertLayoutNchwc, BroadcastPoolsConcatReductions) {
  ExpectSameValues(R"(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w: Tensor[(16, 8, 3, 3), float32], %b: Tensor[(16), float32], %s: Tensor[(16, 1, 1), float32], %t: Tensor[(1, 1, 1, 1), float32], %w2: Tensor[(8, 16, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = multiply(%1, %s);
  %3 = add(%2, %t);
  %4 = nn.relu(%3);
  %5 = add(%4, 1f);
  %6 = nn.avg_pool2d(%5, pool_size=[2, 2], strides=[2, 2]);
  %7 = nn.conv2d(%6, %w2, padding=[0, 0, 0, 0], channels=8, kernel_size=[1, 1]);
  %8 = concatenate((%6, %7), axis=1);
  %9 = nn.global_avg_pool2d(%8);
  %10 = sum(%8, axis=[1]);
  %11 = mean(%8, axis=[1], keepdims=True);
  %12 = max(%8, axis=[2, 3]);
  %13 = sum(%8, axis=[1], exclude=True);
  %14 = min(%8, axis=[2], keepdims=True);
  (%9, %10, %11, %12, %13, %14)
})",
                   {"nn.conv2d:NCHW4c:OIHW4i4o"}, 2);
}

TEST(ConvertLayoutNchwc, FollowersWithoutBlockedRuleAndNhwcInput) {
  // transpose and batch_norm read NCHW again; the NHWC conv2d's data and
  // kernel move straight to the blocked layouts. (TVM's exception for a
  // parameter reads its dimension 1 whatever the layout: H here, 8.)
  ExpectSameValues(R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(3, 3, 8, 16), float32], %b: Tensor[(16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  %1 = nn.relu(%0);
  %2 = transpose(%1, axes=[0, 3, 1, 2]);
  %3 = multiply(%b, %b);
  %4 = add(%3, 1f);
  %5 = nn.batch_norm(%1, %b, %b, %b, %4, axis=3);
  %6 = nn.max_pool2d(%1, pool_size=[2, 2], layout="NHWC");
  (%2, %5.0, %6)
})",
                   {"nn.conv2d:NCHW8c:OIHW8i8o"}, 1);
}

TEST(ConvertLayoutNchwc, BlockedKernelWithPlainData) {
  // TVM's convert_conv2d writes a given kernel layout into the nn.conv2d;
  // the second conv2d's 6 output channels are not a multiple of 8, so it
  // stays as written.
  ExpectSameValues(R"(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w: Tensor[(32, 8, 3, 3), float32], %w2: Tensor[(6, 32, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  nn.conv2d(%1, %w2, padding=[0, 0, 0, 0], channels=6, kernel_size=[1, 1])
})",
                   {"nn.conv2d:NHWC:OHWI8o"}, 1, "kernel_layout=\"OHWI8o\")");
}

}  // namespace
}  // namespace carve::testing
