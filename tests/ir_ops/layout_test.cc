#include "ir/layout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace carve {
namespace {

std::vector<Dim> S(std::initializer_list<int64_t> v) {
  std::vector<Dim> out;
  for (int64_t d : v) out.push_back(d < 0 ? Dim::Any() : Dim{d, false});
  return out;
}

std::string Forward(std::string_view src, std::string_view dst, std::vector<Dim> shape) {
  auto bij = BijectiveLayout::Make(src, dst);
  if (!bij.ok()) return "error: " + std::string(bij.status().message());
  auto out = bij->ForwardShape(shape);
  if (!out.ok()) return "error: " + std::string(out.status().message());
  return ShapeToString(*out);
}

std::string Backward(std::string_view src, std::string_view dst, std::vector<Dim> shape) {
  auto bij = BijectiveLayout::Make(src, dst);
  if (!bij.ok()) return "error: " + std::string(bij.status().message());
  auto out = bij->BackwardShape(shape);
  if (!out.ok()) return "error: " + std::string(out.status().message());
  return ShapeToString(*out);
}

TEST(LayoutTest, ParsesPrimalAndSubAxes) {
  auto l = Layout::Parse("NCHW16c");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->defined());
  EXPECT_EQ(l->ndim(), 5u);
  EXPECT_EQ(l->IndexOf('C'), 1);
  EXPECT_EQ(l->IndexOf('c'), 4);
  EXPECT_EQ(l->IndexOf('D'), -1);
  EXPECT_EQ(l->FactorOf('C'), 16);
  EXPECT_EQ(l->FactorOf('H'), 0);
  EXPECT_EQ(l->axes()[4].primal(), 'C');
  auto w = Layout::Parse("OIHW16i16o");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->FactorOf('O'), 16);
  EXPECT_EQ(w->FactorOf('I'), 16);
}

TEST(LayoutTest, UndefinedAndScalar) {
  EXPECT_FALSE(Layout().defined());
  EXPECT_FALSE(Layout::Parse("__undef__")->defined());
  auto scalar = Layout::Parse("");
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->defined());
  EXPECT_EQ(scalar->ndim(), 0u);
  EXPECT_FALSE(BijectiveLayout::Make(Layout(), *scalar).ok());
}

TEST(LayoutTest, RejectsMalformedLayouts) {
  for (const char* bad : {"NCHW16", "NCH16W", "NCHWc", "NCHWC", "NCHW4d", "NC-HW", "nchw"}) {
    EXPECT_FALSE(Layout::Parse(bad).ok()) << bad;
  }
  EXPECT_EQ(std::string(Layout::Parse("NCHWC").status().message()),
            "invalid layout 'NCHWC': duplicate axis C");
  EXPECT_EQ(std::string(Layout::Parse("NCHW4d").status().message()),
            "invalid layout 'NCHW4d': sub-axis d without primal axis D");
}

TEST(LayoutTest, PermutationLayouts) {
  EXPECT_EQ(Forward("NCHW", "NHWC", S({1, 3, 224, 224})), "(1, 224, 224, 3)");
  EXPECT_EQ(Backward("NCHW", "NHWC", S({1, 224, 224, 3})), "(1, 3, 224, 224)");
  EXPECT_EQ(Forward("HWIO", "OIHW", S({3, 3, 16, 32})), "(32, 16, 3, 3)");
  EXPECT_EQ(Forward("OHWI", "OIHW", S({32, 3, 3, 16})), "(32, 16, 3, 3)");
  EXPECT_EQ(Forward("HWOI", "OIHW", S({3, 3, 32, 1})), "(32, 1, 3, 3)");
  EXPECT_EQ(Forward("IOHW", "OIHW", S({16, 32, 4, 4})), "(32, 16, 4, 4)");
  auto perm = BijectiveLayout::Make("NCHW", "NHWC")->Permutation();
  ASSERT_TRUE(perm.has_value());
  EXPECT_EQ(*perm, (std::vector<int>{0, 2, 3, 1}));
}

TEST(LayoutTest, SplitLayouts) {
  EXPECT_EQ(Forward("NCHW", "NCHW16c", S({1, 32, 7, 7})), "(1, 2, 7, 7, 16)");
  EXPECT_EQ(Backward("NCHW", "NCHW16c", S({1, 2, 7, 7, 16})), "(1, 32, 7, 7)");
  EXPECT_EQ(Forward("NCHW4c", "NCHW8c", S({1, 4, 7, 7, 4})), "(1, 2, 7, 7, 8)");
  EXPECT_EQ(Forward("OIHW", "OIHW16i16o", S({64, 32, 3, 3})), "(4, 2, 3, 3, 16, 16)");
  // TVM floor-divides an extent that the factor does not divide.
  EXPECT_EQ(Forward("NCHW", "NCHW16c", S({1, 3, 7, 7})), "(1, 0, 7, 7, 16)");
  EXPECT_FALSE(BijectiveLayout::Make("NCHW", "NCHW16c")->Permutation().has_value());
}

TEST(LayoutTest, DynamicAndWideDims) {
  EXPECT_EQ(Forward("NCHW", "NHWC", S({-1, 3, -1, 8})), "(?, ?, 8, 3)");
  EXPECT_EQ(Forward("NCHW", "NCHW16c", S({1, -1, 7, 7})), "(1, ?, 7, 7, 16)");
  std::vector<Dim> wide = {Dim{1, true}, Dim{32, true}, Dim{7, true}, Dim{7, false}};
  EXPECT_EQ(Forward("NCHW", "NHWC", wide), "(1i64, 7i64, 7, 32i64)");
  EXPECT_EQ(Forward("NCHW", "NCHW16c", wide), "(1i64, 2i64, 7i64, 7, 16)");
}

TEST(LayoutTest, ShapeErrors) {
  EXPECT_EQ(Forward("NCHW", "NHWC", S({1, 3})),
            "error: expected 4-d shape for layout NCHW, got (1, 3)");
  EXPECT_EQ(Backward("NCHW", "NCHW16c", S({1, 2, 7, 7, 8})),
            "error: dim 4 of (1, 2, 7, 7, 8) is 8, but layout NCHW16c splits it with factor 16");
  EXPECT_EQ(Forward("NCHW", "NCW", S({1, 3, 4, 4})),
            "error: layout NCHW is not convertible to NCW");
}

TEST(LayoutTest, IndexMappingRoundTrips) {
  auto bij = BijectiveLayout::Make("NCHW", "NCHW4c");
  ASSERT_TRUE(bij.ok());
  int64_t src[] = {0, 6, 2, 3};
  int64_t dst[5];
  bij->ForwardIndex(src, dst);
  EXPECT_EQ(std::vector<int64_t>(dst, dst + 5), (std::vector<int64_t>{0, 1, 2, 3, 2}));
  int64_t back[4];
  bij->BackwardIndex(dst, back);
  EXPECT_EQ(std::vector<int64_t>(back, back + 4), (std::vector<int64_t>{0, 6, 2, 3}));
  auto nhwc = BijectiveLayout::Make("NCHW", "NHWC");
  int64_t nhwc_dst[4];
  nhwc->ForwardIndex(src, nhwc_dst);
  EXPECT_EQ(std::vector<int64_t>(nhwc_dst, nhwc_dst + 4), (std::vector<int64_t>{0, 2, 3, 6}));
}

}  // namespace
}  // namespace carve
