// dft and stft against values worked out by hand from topi's definitions
// (python/tvm/topi/signal.py at v0.16.0).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "at " << i;
}

TEST(Dft, ForwardAndInverse) {
  // DFT of 1, 2, 3, 4: 10, -2 + 2i, -2, -2 - 2i; row 2 is an impulse (all 1).
  auto outs = RunOp("dft", {Tensor<float>({2, 4}, {1, 2, 3, 4, 1, 0, 0, 0}),
                            Tensor<float>({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0})});
  CARVE_ASSERT_OK(outs);
  ExpectClose(AsDoubles((*outs)[0]), {10, -2, -2, -2, 1, 1, 1, 1});
  ExpectClose(AsDoubles((*outs)[1]), {0, 2, 0, -2, 0, 0, 0, 0});
  auto back = RunOp("dft", {(*outs)[0], (*outs)[1]}, {{"inverse", Bool(true)}});
  CARVE_ASSERT_OK(back);
  ExpectClose(AsDoubles((*back)[0]), {1, 2, 3, 4, 1, 0, 0, 0});
  ExpectClose(AsDoubles((*back)[1]), {0, 0, 0, 0, 0, 0, 0, 0});
}

TEST(Dft, EmptyLastAxis) {
  auto outs = RunOp("dft", {Tensor<float>({3, 0}, {}), Tensor<float>({3, 0}, {})});
  CARVE_ASSERT_OK(outs);
  EXPECT_EQ((*outs)[0].num_elements(), 0);
}

TEST(Stft, OnesidedBinsAndNormalisation) {
  // One frame of 1, 2, 3, 4 with a rectangular window: bins 10, -2 + 2i, -2.
  const NDArray data = Tensor<float>({1, 4}, {1, 2, 3, 4});
  const NDArray window = Tensor<float>({4}, {1, 1, 1, 1});
  AttrList attrs = {{"n_fft", Int(4)}, {"hop_length", Int(1)}, {"win_length", Int(4)}};
  auto out = RunOp1("stft", {data, window}, attrs);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(1, 3, 1, 2));
  ExpectClose(AsDoubles(*out), {10, 0, -2, 2, -2, 0});
  attrs.emplace_back("normalized", Bool(true));
  auto norm = RunOp1("stft", {data, window}, attrs);
  CARVE_ASSERT_OK(norm);
  ExpectClose(AsDoubles(*norm), {5, 0, -1, 1, -1, 0});
}

TEST(Stft, ShortWindowUsesItsOwnLengthForTheAngle) {
  // win_length 2 of n_fft 4: bin r sums x[0] + x[1] e^(-i pi r): 3, -1, 3.
  auto out = RunOp1("stft", {Tensor<float>({1, 4}, {1, 2, 3, 4}), Tensor<float>({2}, {1, 1})},
                    {{"n_fft", Int(4)}, {"hop_length", Int(2)}, {"win_length", Int(2)}});
  CARVE_ASSERT_OK(out);
  ExpectClose(AsDoubles(*out), {3, 0, -1, 0, 3, 0});
}

TEST(Stft, WindowPastTheDataIsAnError) {
  auto out = RunOp1("stft", {Tensor<float>({1, 4}, {1, 2, 3, 4}), Tensor<float>({8}, {1, 1, 1, 1, 1, 1, 1, 1})},
                    {{"n_fft", Int(4)}, {"hop_length", Int(1)}, {"win_length", Int(8)}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("reads past"));
}

}  // namespace
}  // namespace carve::testing
