#include "support/edit_distance.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace carve {
namespace {

TEST(EditDistanceTest, Levenshtein) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("relu", ""), 4u);
  EXPECT_EQ(EditDistance("conv2d", "conv2d"), 0u);
  EXPECT_EQ(EditDistance("nn.conv2", "nn.conv2d"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("ab", "ba"), 2u);  // a transposition is two edits here
}

// The bounded distance is the full one wherever that is within the limit,
// and limit + 1 wherever it is not: random strings over a small alphabet
// (so that both cases occur) against every limit up to past their lengths.
TEST(EditDistanceTest, BoundedDistanceIsExactUpToTheLimit) {
  std::mt19937 rng(7);
  auto random_string = [&] {
    std::string s(rng() % 9, 'a');
    for (char& c : s) c = char('a' + rng() % 3);
    return s;
  };
  for (int k = 0; k < 2000; ++k) {
    std::string a = random_string(), b = random_string();
    size_t full = EditDistance(a, b);
    for (size_t limit = 0; limit <= 10; ++limit) {
      EXPECT_EQ(EditDistance(a, b, limit), std::min(full, limit + 1))
          << "'" << a << "' '" << b << "' limit " << limit;
    }
  }
}

TEST(EditDistanceTest, NearestNameTakesTheFirstClosestWithinReach) {
  std::vector<std::string> names = {"FoldConstant", "FuseOps", "FoldScaleAxis", "InferType"};
  EXPECT_EQ(NearestName("FoldConstnt", names), "FoldConstant");
  EXPECT_EQ(NearestName("InferTyp", names), "InferType");
  EXPECT_EQ(NearestName("FuseOps", names), "FuseOps");
  EXPECT_EQ(NearestName("SimplifyExpr", names), "");
  EXPECT_EQ(NearestName("x", {}), "");
  // Two candidates one edit away: the earlier one.
  std::vector<std::string> tied = {"ab", "ac"};
  EXPECT_EQ(NearestName("aa", tied), "ab");
}

}  // namespace
}  // namespace carve
