// carve's plain <-> channels-last conversions (dnnl_transpose.h) give
// exactly oneDNN's reorder results, for the layouts they claim and no other.
#include "backends/dnnl/dnnl_transpose.h"

#include <algorithm>
#include <vector>

#include "backends/dnnl/dnnl_common.h"
#include "gtest/gtest.h"

namespace carve::dnnl_backend {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

memory::desc Desc(const memory::dims& dims, tag t) {
  return memory::desc(dims, memory::data_type::f32, t);
}

// `from` -> `to` by carve's transpose and by oneDNN's reorder, on distinct
// values: the same bytes.
void ExpectSameAsReorder(const memory::desc& from, const memory::desc& to) {
  std::optional<ChannelsTranspose> t = PlanChannelsTranspose(from, to);
  ASSERT_TRUE(t.has_value());
  const size_t n = std::max(from.get_size(), to.get_size()) / sizeof(float);
  std::vector<float> src(n), ours(n, -1.f), theirs(n, -2.f);
  for (size_t i = 0; i < n; ++i) src[i] = float(i) * 0.5f - 3.f;
  t->Run(src.data(), ours.data());
  dnnl::stream s(Engine());
  memory a(from, Engine(), src.data()), b(to, Engine(), theirs.data());
  dnnl::reorder(a, b).execute(s, a, b);
  s.wait();
  // What `to` covers (a plain tensor is shorter than a padded blocked one).
  ours.resize(to.get_size() / sizeof(float)), theirs.resize(ours.size());
  EXPECT_EQ(ours, theirs);
}

TEST(DnnlTranspose, PlainToChannelsLastAndBack) {
  // Sizes below, at and past the 8 x 8 blocks, batch 1 and 2, 3 to 5 dims.
  const std::vector<std::pair<memory::dims, std::pair<tag, tag>>> cases = {
      {{1, 200, 2, 96}, {tag::nchw, tag::nhwc}}, {{1, 9, 48, 192}, {tag::nchw, tag::nhwc}},
      {{2, 13, 7, 5}, {tag::nchw, tag::nhwc}},   {{1, 8, 8, 1}, {tag::nchw, tag::nhwc}},
      {{3, 17, 9}, {tag::ncw, tag::nwc}},        {{2, 9, 3, 4, 5}, {tag::ncdhw, tag::ndhwc}},
      {{1, 8, 2, 4}, {tag::nchw, tag::nhwc}},
      {{1, 1000, 13, 13}, {tag::nchw, tag::nhwc}}};
  for (const auto& [dims, tags] : cases) {
    SCOPED_TRACE(::testing::PrintToString(dims));
    ExpectSameAsReorder(Desc(dims, tags.first), Desc(dims, tags.second));
    ExpectSameAsReorder(Desc(dims, tags.second), Desc(dims, tags.first));
  }
}

TEST(DnnlTranspose, PlainToChannelBlocksAndBack) {
  // Channels in whole and padded blocks, one pixel, batch 1 and 2, 3 to 5
  // dims, blocks of 8 (AVX2) and 16 (AVX-512). The padding of the last
  // block is compared too (ExpectSameAsReorder fills it differently).
  const std::vector<std::pair<memory::dims, std::pair<tag, tag>>> cases = {
      {{1, 64, 55, 55}, {tag::nchw, tag::nChw8c}},   {{1, 40, 6, 24}, {tag::nchw, tag::nChw8c}},
      {{2, 13, 7, 5}, {tag::nchw, tag::nChw8c}},     {{1, 3, 48, 192}, {tag::nchw, tag::nChw8c}},
      {{1, 200, 1, 1}, {tag::nchw, tag::nChw8c}},    {{1, 1000, 13, 13}, {tag::nchw, tag::nChw16c}},
      {{2, 20, 9, 3}, {tag::nchw, tag::nChw16c}},    {{3, 17, 9}, {tag::ncw, tag::nCw8c}},
      {{2, 9, 3, 4, 5}, {tag::ncdhw, tag::nCdhw16c}}, {{1, 8, 1, 1}, {tag::nchw, tag::nChw8c}},
      // Whole blocks of 8 (their own loop): pixels in whole 8 x 8 tiles,
      // with a remainder, fewer than a tile; padded last block after them.
      {{1, 128, 27, 27}, {tag::nchw, tag::nChw8c}},  {{2, 16, 4, 4}, {tag::nchw, tag::nChw8c}},
      {{1, 24, 2, 3}, {tag::nchw, tag::nChw8c}},     {{1, 20, 13, 13}, {tag::nchw, tag::nChw8c}}};
  for (const auto& [dims, tags] : cases) {
    SCOPED_TRACE(::testing::PrintToString(dims));
    ExpectSameAsReorder(Desc(dims, tags.first), Desc(dims, tags.second));
    ExpectSameAsReorder(Desc(dims, tags.second), Desc(dims, tags.first));
  }
}

TEST(DnnlTranspose, OtherLayoutsAreLeftToOneDnn) {
  const memory::dims d{1, 32, 6, 6};
  EXPECT_FALSE(PlanChannelsTranspose(Desc(d, tag::nchw), Desc(d, tag::nchw)));
  EXPECT_FALSE(PlanChannelsTranspose(Desc(d, tag::nChw16c), Desc(d, tag::nhwc)));
  EXPECT_FALSE(PlanChannelsTranspose(Desc(d, tag::nChw8c), Desc(d, tag::nChw16c)));
  EXPECT_FALSE(PlanChannelsTranspose(Desc(d, tag::nchw), Desc(d, tag::Acdb8a)));
  EXPECT_FALSE(PlanChannelsTranspose(Desc(d, tag::nchw), Desc(d, tag::abdc)));
  // One pixel: both layouts are the same bytes.
  const memory::dims pixel{1, 32, 1, 1};
  EXPECT_FALSE(PlanChannelsTranspose(Desc(pixel, tag::nchw), Desc(pixel, tag::nhwc)));
  // Under 8 channels or pixels.
  EXPECT_FALSE(PlanChannelsTranspose(Desc({1, 3, 48, 192}, tag::nchw), Desc({1, 3, 48, 192}, tag::nhwc)));
  EXPECT_FALSE(PlanChannelsTranspose(Desc({1, 32, 7}, tag::ncw), Desc({1, 32, 7}, tag::nwc)));
  // Different dims.
  EXPECT_FALSE(PlanChannelsTranspose(Desc(d, tag::nchw), Desc({1, 32, 6, 7}, tag::nhwc)));
}

TEST(DnnlTranspose, MatrixEdges) {
  for (int64_t rows : {1, 7, 8, 9, 16, 23}) {
    for (int64_t cols : {1, 8, 15, 33}) {
      const int64_t lds = cols + 3, ldd = rows + 2;
      std::vector<float> src(rows * lds), dst(cols * ldd, -1.f);
      for (size_t i = 0; i < src.size(); ++i) src[i] = float(i);
      TransposeMatrix(src.data(), rows, cols, lds, dst.data(), ldd);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) ASSERT_EQ(dst[j * ldd + i], src[i * lds + j]);
      }
      // Padding columns of dst are untouched.
      for (int64_t j = 0; j < cols; ++j) {
        for (int64_t i = rows; i < ldd; ++i) ASSERT_EQ(dst[j * ldd + i], -1.f);
      }
    }
  }
}

}  // namespace
}  // namespace carve::dnnl_backend
