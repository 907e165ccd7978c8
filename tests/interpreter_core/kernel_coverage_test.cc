// Every operator in the registry has a kernel (or is listed in docs/ops.md
// with the reason it has none), and values of any nesting depth are
// destroyed without recursion.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/kernel.h"
#include "interpreter/value.h"
#include "ir/op.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

// The ops named in the first column of docs/ops.md's "Registered without a
// kernel" table.
std::set<std::string> DocumentedWithoutKernel() {
  std::ifstream in(std::filesystem::path(CARVE_SOURCE_DIR) / "docs" / "ops.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::set<std::string> names;
  size_t at = text.find("## Registered without a kernel");
  if (at == std::string::npos) return names;
  std::stringstream lines(text.substr(at));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && !line.starts_with("## ")) {
    if (!line.starts_with("| `")) continue;
    size_t end = line.find('`', 3);
    names.insert(line.substr(3, end - 3));
  }
  return names;
}

// The annotation ops are identities the evaluator could also skip, but they
// have kernels too, so a module with annotations left in still runs. An op
// without a kernel must be listed in docs/ops.md with the reason, and a
// listed op must really lack one.
TEST(KernelCoverage, EveryRegisteredOpHasAKernel) {
  const std::set<std::string> documented = DocumentedWithoutKernel();
  std::vector<std::string> missing, listed_with_kernel;
  for (const OpInfo* op : AllOps()) {
    const bool has = FindKernel(op->name) != nullptr;
    const bool listed = documented.contains(std::string(op->name));
    if (!has && !listed) missing.emplace_back(op->name);
    if (has && listed) listed_with_kernel.emplace_back(op->name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without a kernel: " << ::testing::PrintToString(missing);
  EXPECT_TRUE(listed_with_kernel.empty())
      << "docs/ops.md lists these as kernel-less: " << ::testing::PrintToString(listed_with_kernel);
  for (const std::string& name : documented) {
    EXPECT_NE(FindOp(name), nullptr) << "docs/ops.md lists an unregistered op " << name;
  }
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
