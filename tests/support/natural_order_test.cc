// NaturalLess (support/natural_order.h): partition names sort by number.
#include "support/natural_order.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace carve {
namespace {

TEST(NaturalOrderTest, NumbersCompareByValue) {
  std::vector<std::string> names = {"main_2", "main_105", "main_0", "main_10", "main_1"};
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
  EXPECT_EQ(names, (std::vector<std::string>{"main_0", "main_1", "main_2", "main_10", "main_105"}));
}

TEST(NaturalOrderTest, TextAndPrefixes) {
  EXPECT_TRUE(NaturalLess("tvmgen_default_dnnl_main_9", "tvmgen_default_nnapi_main_0"));
  EXPECT_TRUE(NaturalLess("main", "main_0"));
  EXPECT_FALSE(NaturalLess("main_0", "main"));
  EXPECT_TRUE(NaturalLess("a2b", "a10"));
  EXPECT_TRUE(NaturalLess("a9", "ab"));  // digits sort before letters, as in text order
  EXPECT_TRUE(NaturalLess("a2x3", "a2x12"));
}

TEST(NaturalOrderTest, IsAStrictTotalOrder) {
  EXPECT_FALSE(NaturalLess("main_7", "main_7"));
  // Equal values with different leading zeros are still ordered (fewer first).
  EXPECT_TRUE(NaturalLess("x1", "x01"));
  EXPECT_FALSE(NaturalLess("x01", "x1"));
  EXPECT_TRUE(NaturalLess("x0", "x00"));
  // Numbers longer than any integer type.
  EXPECT_TRUE(NaturalLess("n99999999999999999999999", "n100000000000000000000000"));
}

}  // namespace
}  // namespace carve
