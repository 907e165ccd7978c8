// The dnnl backend runs pools of plain NCHW data on oneDNN's channel-blocked
// layout (dnnl_ops.cc, BlockedPoolKernel) on the premise that oneDNN's JIT
// pool there computes the same bits as its plain-layout pool: the same
// taps in the same order, the same division. Checked here on random data,
// for the averages too (whose summation order would show).
#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "backends/dnnl/dnnl_common.h"
#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/serializer.h"
#include "backends_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace carve::dnnl_backend {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

struct PoolCase {
  memory::dims src, dst, kernel, strides, pad_l, pad_r;
  dnnl::algorithm algorithm;
};

// The pool of `c` on `layout` (src and dst), on `data` (plain), made plain.
std::vector<float> Pool(const PoolCase& c, tag layout, const std::vector<float>& data) {
  dnnl::stream s(Engine());
  memory::desc psrc(c.src, memory::data_type::f32, tag::nchw);
  memory::desc pdst(c.dst, memory::data_type::f32, tag::nchw);
  memory::desc lsrc(c.src, memory::data_type::f32, layout);
  memory::desc ldst(c.dst, memory::data_type::f32, layout);
  memory plain_in(psrc, Engine(), const_cast<float*>(data.data()));
  memory in(lsrc, Engine()), out(ldst, Engine());
  dnnl::reorder(plain_in, in).execute(s, plain_in, in);
  memory::dims dilation(c.kernel.size(), 0);
  dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, c.algorithm, lsrc, ldst,
                                   c.strides, c.kernel, dilation, c.pad_l, c.pad_r);
  dnnl::pooling_v2_forward::primitive_desc pd(d, Engine());
  dnnl::pooling_v2_forward(pd).execute(s, {{DNNL_ARG_SRC, in}, {DNNL_ARG_DST, out}});
  std::vector<float> result(pdst.get_size() / sizeof(float));
  memory plain_out(pdst, Engine(), result.data());
  dnnl::reorder(out, plain_out).execute(s, out, plain_out);
  s.wait();
  return result;
}

TEST(DnnlPoolLayout, BlockedPoolsGivePlainPoolsBits) {
  using dnnl::algorithm;
  const std::vector<PoolCase> cases = {
      // ppocr's SE global averages and its max pool; a padded ceil-mode
      // window; channels not in whole blocks.
      {{1, 88, 3, 96}, {1, 88, 1, 1}, {3, 96}, {1, 1}, {0, 0}, {0, 0},
       algorithm::pooling_avg_exclude_padding},
      {{1, 200, 2, 96}, {1, 200, 1, 1}, {2, 96}, {1, 1}, {0, 0}, {0, 0},
       algorithm::pooling_avg_exclude_padding},
      {{1, 200, 2, 96}, {1, 200, 1, 48}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, algorithm::pooling_max},
      {{2, 20, 7, 9}, {2, 20, 4, 5}, {3, 3}, {2, 2}, {1, 0}, {1, 2},
       algorithm::pooling_avg_exclude_padding},
      {{2, 20, 7, 9}, {2, 20, 4, 5}, {3, 3}, {2, 2}, {1, 0}, {1, 2},
       algorithm::pooling_avg_include_padding},
      {{1, 3, 13, 13}, {1, 3, 6, 6}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, algorithm::pooling_max}};
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 3.f);
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.src));
    std::vector<float> data(memory::desc(c.src, memory::data_type::f32, tag::nchw).get_size() / 4);
    for (float& v : data) v = normal(rng);
    EXPECT_EQ(Pool(c, tag::nChw8c, data), Pool(c, tag::nchw, data));
    EXPECT_EQ(Pool(c, tag::nChw16c, data), Pool(c, tag::nchw, data));
  }
}

// A global average pool of plain NCHW data runs on carve's loop (dnnl_ops.cc,
// PlainGlobalAverageKernel), not on blocks: it must give oneDNN's bits, for
// channels in whole blocks of 8 or not, one image or several.
TEST(DnnlPoolLayout, PlainGlobalAverageGivesOneDnnsBits) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 3.f);
  for (auto [n, c, h, w] : std::vector<std::array<int64_t, 4>>{
           {1, 88, 3, 96}, {1, 200, 2, 96}, {1, 48, 3, 96}, {2, 13, 5, 7}, {1, 3, 13, 13}}) {
    SCOPED_TRACE(fmt::format("{}x{}x{}x{}", n, c, h, w));
    Module mod = testing::ParseTyped(fmt::format(R"(
def @part(%i0: Tensor[({0}, {1}, {2}, {3}), float32], Compiler="dnnl", global_symbol="part") {{
  nn.global_avg_pool2d(%i0)
}}
)",
                                                 n, c, h, w));
    SerializedFunction s = SerializeFunction(mod.Lookup("part"), "part").value();
    NodeBuildContext ctx;
    ctx.graph = &s.graph;
    ctx.nid = uint32_t(s.graph.nodes.size() - 1);
    ctx.const_inputs.resize(1);
    std::unique_ptr<NodeKernel> kernel = MakeDnnlPool(ctx).value();
    NDArray x = NDArray::Empty(DataType::Float(32), {n, c, h, w});
    std::vector<float> data(size_t(n * c * h * w));
    for (float& v : data) v = normal(rng);
    std::copy(data.begin(), data.end(), x.data<float>());
    std::vector<NDArray> out = kernel->Run(std::vector<NDArray>{x}).value();
    ASSERT_EQ(out.size(), 1u);
    PoolCase pc{{n, c, h, w}, {n, c, 1, 1}, {h, w}, {1, 1}, {0, 0}, {0, 0},
                dnnl::algorithm::pooling_avg_exclude_padding};
    std::vector<float> expected = Pool(pc, tag::nchw, data);
    std::vector<float> got(out[0].data<float>(), out[0].data<float>() + expected.size());
    EXPECT_EQ(got, expected);
    EXPECT_EQ(Pool(pc, tag::nChw8c, data), expected);
  }
}

}  // namespace
}  // namespace carve::dnnl_backend
