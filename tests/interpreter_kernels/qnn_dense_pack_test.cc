// qnn.contrib_dense_pack with Hexagon's compute (the only one TVM v0.16
// has): uint8 data against an int8 weight in layout NC32n4c, checked
// against a dense product on the unpacked weight, and the wrap of an
// operand less its zero point back into its 8-bit dtype.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

const AttrList kAttrs = {{"units", Int(32)}, {"out_dtype", Str("int32")},
                         {"weight_layout", Str("NC32n4c")}};

TEST(QnnDensePack, MatchesDenseOnTheUnpackedWeight) {
  const int64_t m = 2, k = 8, n = 32;
  std::vector<uint8_t> x(m * k);
  std::vector<int8_t> packed(n * k);
  for (size_t i = 0; i < x.size(); ++i) x[i] = uint8_t(10 + (i * 7) % 40);
  for (size_t i = 0; i < packed.size(); ++i) packed[i] = int8_t(int(i * 11 % 90) - 40);
  auto out = RunOp1("qnn.contrib_dense_pack",
                    {Tensor<uint8_t>({m, k}, x), Tensor<int8_t>({1, k / 4, 32, 4}, packed),
                     Tensor<int32_t>({}, {5}), Tensor<int32_t>({}, {-2}),
                     Tensor<float>({}, {1}), Tensor<float>({}, {1})},
                    kAttrs);
  CARVE_ASSERT_OK(out);
  ASSERT_EQ(out->shape(), (std::vector<int64_t>{m, n}));
  const std::vector<int32_t> y = Values<int32_t>(*out);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      int32_t want = 0;  // weight[n, k] sits at [0, k / 4, n, k % 4]
      for (int64_t j = 0; j < k; ++j) {
        want += (int32_t(x[r * k + j]) - 5) * (int32_t(packed[((j / 4) * 32 + c) * 4 + j % 4]) + 2);
      }
      EXPECT_EQ(y[r * n + c], want) << r << ", " << c;
    }
  }
}

TEST(QnnDensePack, OperandsWrapInTheirDtype) {
  // data 1 - zero point 3 = -2, cast back to uint8: 254; weight 1 - 0 = 1:
  // every output is 254 * 1 from the single nonzero weight column k = 0.
  std::vector<int8_t> packed(32 * 4, 0);
  for (int c = 0; c < 32; ++c) packed[c * 4] = 1;
  auto out = RunOp1("qnn.contrib_dense_pack",
                    {Tensor<uint8_t>({1, 4}, {1, 1, 1, 1}), Tensor<int8_t>({1, 1, 32, 4}, packed),
                     Tensor<int32_t>({}, {3}), Tensor<int32_t>({}, {0}), Tensor<float>({}, {1}),
                     Tensor<float>({}, {1})},
                    kAttrs);
  CARVE_ASSERT_OK(out);
  for (int32_t v : Values<int32_t>(*out)) EXPECT_EQ(v, 254);

  AttrList other = kAttrs;
  other.back() = {"weight_layout", Str("NC")};
  auto bad = RunOp1("qnn.contrib_dense_pack",
                    {Tensor<uint8_t>({1, 4}, {1, 1, 1, 1}), Tensor<int8_t>({1, 1, 32, 4}, packed),
                     Tensor<int32_t>({}, {3}), Tensor<int32_t>({}, {0}), Tensor<float>({}, {1}),
                     Tensor<float>({}, {1})},
                    other);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("NC32n4c"));
}

}  // namespace
}  // namespace carve::testing
