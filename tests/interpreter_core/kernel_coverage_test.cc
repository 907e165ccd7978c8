// Every operator in the registry has a kernel, and values of any nesting
// depth are destroyed without recursion.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/kernel.h"
#include "interpreter/value.h"
#include "ir/op.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

// The annotation ops are identities the evaluator could also skip, but they
// have kernels too, so a module with annotations left in still runs: no op
// is exempt.
TEST(KernelCoverage, EveryRegisteredOpHasAKernel) {
  std::vector<std::string> missing;
  for (const OpInfo* op : AllOps()) {
    if (FindKernel(op->name) == nullptr) missing.emplace_back(op->name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without a kernel: " << ::testing::PrintToString(missing);
  EXPECT_GT(AllOps().size(), 100u);
}

TEST(ValueLifetime, MillionDeepTupleIsDestroyedIteratively) {
  Value v = Tensor<float>({1}, {1.0f});
  for (int i = 0; i < 1'000'000; ++i) v = Value::Tuple({v, Tensor<float>({1}, {float(i)})});
  EXPECT_EQ(v.TensorBytes(), 4 * 1'000'001);
  Value shared = v;  // a second owner keeps the chain alive
  v = Value();
  ASSERT_TRUE(shared.is_tuple());
  EXPECT_EQ(shared.fields()[1].tensor().data<float>()[0], 999'999.0f);
  shared = Value();  // the last owner: would overflow the stack if recursive
  EXPECT_EQ(shared.TensorBytes(), 0);
}

TEST(ValueLifetime, MillionDeepClosureChainIsDestroyedIteratively) {
  Value v = Tensor<float>({1}, {0.0f});
  for (int i = 0; i < 1'000'000; ++i) {
    Closure c;
    c.captured.emplace_back(nullptr, std::move(v));
    v = Value::MakeClosure(std::move(c));
  }
  EXPECT_TRUE(v.is_closure());
  v = Value();
  EXPECT_TRUE(v.is_tuple());
}

TEST(ValueLifetime, DescribeElidesDeepNesting) {
  Value v = Tensor<float>({2}, {1.0f, 2.0f});
  for (int i = 0; i < 100'000; ++i) v = Value::Tuple({v});
  EXPECT_EQ(DescribeValue(v), "(((((...),),),),)");  // four levels, then elided
}

}  // namespace
}  // namespace carve::testing
