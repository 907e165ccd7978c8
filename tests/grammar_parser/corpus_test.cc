// Every TVM-printed program of the shared corpus parses, with the structure
// TVM gave it (counts of functions and calls, attributes, constants).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "test_util.h"
#include "tests/common/corpus_files.h"

namespace carve {
namespace {

using testing_util::CorpusPath;
using testing_util::Diagnostics;
using testing_util::ReadFile;

absl::StatusOr<Module> ParseCorpus(const std::string& name) {
  return ParseModule(name, ReadFile(CorpusPath(name)));
}

// Calls of each op (by name) in every function of `m`, and calls in total.
std::map<std::string, int> CountOps(const Module& m) {
  std::map<std::string, int> counts;
  for (const auto& [gv, fn] : m.Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) {
      if (const Call* call = DynCast<Call>(e)) {
        counts[call->op() ? std::string(call->op()->name) : "<non-op>"]++;
      }
    });
  }
  return counts;
}

std::vector<const Call*> CallsOf(const Module& m, std::string_view op) {
  std::vector<const Call*> calls;
  for (const auto& [gv, fn] : m.Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) {
      if (IsOpCall(e, op)) calls.push_back(Cast<Call>(e));
    });
  }
  return calls;
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, Parses) {
  auto m = ParseCorpus(GetParam());
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_NE(m->Lookup("main"), nullptr);
  EXPECT_TRUE(m->UndefinedGlobals().empty());
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(testing_util::CorpusFiles()),
                         testing_util::CorpusCaseName);

TEST(Corpus, EveryFileInTheDirectoryParses) {
  // Catches corpus files added after the list above was written.
  int parsed = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(CARVE_SHARED_DIR) + "/corpus")) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".relay") && !name.ends_with(".txt")) continue;
    auto m = ParseCorpus(name);
    EXPECT_TRUE(m.ok()) << Diagnostics(m);
    ++parsed;
  }
  EXPECT_GE(parsed, 23);
}

// The constant passed as argument `i` of `call`, or nullptr.
const Constant* ConstArg(const Call* call, size_t i) {
  return i < call->args().size() ? DynCast<Constant>(call->args()[i]) : nullptr;
}

std::vector<double> Values(const NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.num_elements(); ++i) out.push_back(a.GetAsDouble(i));
  return out;
}

TEST(CorpusStructure, ConvBoundConstants) {
  auto m = ParseCorpus("conv_bound_constants.relay");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_EQ(m->size(), 1u);
  EXPECT_EQ(CountOps(*m),
            (std::map<std::string, int>{
                {"cast", 2}, {"nn.bias_add", 1}, {"nn.conv2d", 1}, {"nn.relu", 1}, {"take", 1}}));
  const Call* conv = CallsOf(*m, "nn.conv2d").at(0);
  const Constant* weight = ConstArg(conv, 1);
  ASSERT_NE(weight, nullptr);
  EXPECT_EQ(weight->data().dtype(), DataType::Float(32));
  EXPECT_EQ(weight->data().shape(), (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_EQ(conv->attrs()->GetInts("padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv->attrs()->GetInts("kernel_size"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(conv->attrs()->GetInts("strides"), (std::vector<int64_t>{1, 1}));  // default
  EXPECT_EQ(conv->attrs()->GetInt("channels"), 4);
  EXPECT_EQ(conv->attrs()->GetString("data_layout"), "NCHW");
  const Call* take = CallsOf(*m, "take").at(0);
  ASSERT_NE(ConstArg(take, 1), nullptr);
  EXPECT_EQ(ConstArg(take, 1)->data().dtype(), DataType::Int(64));
  EXPECT_EQ(Values(ConstArg(take, 1)->data()), (std::vector<double>{0, 2}));
  EXPECT_EQ(take->attrs()->GetInt("axis"), 1);
  std::vector<const Call*> casts = CallsOf(*m, "cast");
  ASSERT_EQ(casts.size(), 2u);
  std::vector<std::pair<std::string, std::vector<double>>> cast_inputs;
  for (const Call* cast : casts) {
    const Constant* c = ConstArg(cast, 0);
    ASSERT_NE(c, nullptr);
    cast_inputs.emplace_back(
        c->data().dtype().ToString() + "->" + std::string(cast->attrs()->GetString("dtype")),
        Values(c->data()));
  }
  EXPECT_THAT(cast_inputs, ::testing::UnorderedElementsAre(
                               ::testing::Pair("int8->float32", std::vector<double>{1, -2, 3, -4}),
                               ::testing::Pair("uint8->int32", std::vector<double>{1, 2, 3})));
  const Function* main = m->Lookup("main");
  EXPECT_EQ(TypeToString(main->ret_type()),
            "(Tensor[(1, 2, 6, 6), float32], Tensor[(2, 2), float32], Tensor[(3), int32])");
}

TEST(CorpusStructure, AnnotatedDemoReadsCompilerAttrsFromMetadata) {
  auto m = ParseCorpus("demo_2_annotate_target.relay");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  std::map<std::string, int> targets;
  for (std::string_view op : {"annotation.compiler_begin", "annotation.compiler_end"}) {
    for (const Call* call : CallsOf(*m, op)) {
      ASSERT_NE(call->attrs(), nullptr);
      EXPECT_EQ(call->attrs()->schema(), FindAttrsSchema("relay.attrs.CompilerAttrs"));
      targets[std::string(call->attrs()->GetString("compiler"))]++;
    }
  }
  EXPECT_EQ(CallsOf(*m, "annotation.compiler_begin").size(), 19u);
  EXPECT_EQ(CallsOf(*m, "annotation.compiler_end").size(), 7u);
  EXPECT_EQ(targets, (std::map<std::string, int>{{"byoc_target", 13}, {"default", 13}}));
}

TEST(CorpusStructure, SeedPartitionGraphKeepsDashedNames) {
  auto m = ParseCorpus("demo_seed_name_4_partition_graph.txt");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_EQ(m->size(), 4u);
  const Function* f = m->Lookup("tvmgen_default_byoc_target_main_0");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->params().size(), 1u);
  EXPECT_EQ(f->params()[0]->name(), "byoc-target_0_i0");
  EXPECT_EQ(f->GetStringAttr("Compiler"), "byoc-target");
  // Function attributes keep their text order.
  std::vector<std::string_view> keys;
  for (const AttrEntry& e : f->attrs()->entries()) keys.push_back(e.key);
  EXPECT_EQ(keys,
            (std::vector<std::string_view>{"Compiler", "Primitive", "Inline", "global_symbol"}));
  EXPECT_EQ(f->attrs()->GetInt("Primitive"), 1);
  const Call* add = CallsOf(*m, "add").at(0);
  EXPECT_EQ(add->args()[0], f->params()[0]);
}

TEST(CorpusStructure, Resnet18) {
  auto m = ParseCorpus("resnet18_cifar.relay");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  std::map<std::string, int> ops = CountOps(*m);
  EXPECT_EQ(ops["nn.conv2d"], 21);
  EXPECT_EQ(ops["nn.batch_norm"], 18);
  EXPECT_EQ(ops["nn.relu"], 17);
  EXPECT_EQ(ops["add"], 8);
  EXPECT_EQ(ops["nn.dense"], 1);
}

TEST(CorpusStructure, GlobalsAndRecursion) {
  auto m = ParseCorpus("globals_recursion.relay");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_EQ(m->size(), 3u);
  const Function* sum_to = m->Lookup("sum_to");
  ASSERT_NE(sum_to, nullptr);
  const If* body = DynCast<If>(sum_to->body());
  ASSERT_NE(body, nullptr);
  // The recursive call names the very GlobalVar the module defines.
  const Expr* else_branch = body->else_branch();
  const Call* recursive = nullptr;
  PostOrderVisit(else_branch, [&](const Expr* e) {
    if (const Call* c = DynCast<Call>(e); c && Isa<GlobalVar>(c->callee())) recursive = c;
  });
  ASSERT_NE(recursive, nullptr);
  EXPECT_EQ(recursive->callee(), m->FindGlobalVar("sum_to"));
}

TEST(CorpusStructure, LstmLetsAndFunctionLiterals) {
  auto m = ParseCorpus("lstm.relay");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  int lets = 0, functions = 0, projections = 0;
  PostOrderVisit(m->Lookup("main"), [&](const Expr* e) {
    lets += Isa<Let>(e);
    functions += Isa<Function>(e);
    projections += Isa<TupleGetItem>(e);
  });
  EXPECT_EQ(lets, 44);
  EXPECT_EQ(functions, 1 + 3);  // @main and three fn literals
  EXPECT_GT(projections, 0);
}

TEST(CorpusStructure, ScalarsOfEveryPrintedDType) {
  auto m = ParseCorpus("scalars_let_if_fn.relay");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  // The let values, in order, as "dtype value".
  std::vector<std::string> values;
  const Expr* e = m->Lookup("main")->body();
  while (const Let* let = DynCast<Let>(e)) {
    if (const Constant* c = DynCast<Constant>(let->value())) {
      values.push_back(
          fmt::format("{} {}", c->data().dtype().ToString(), c->data().GetAsDouble(0)));
    }
    e = let->body();
  }
  EXPECT_THAT(values,
              ::testing::ElementsAre("int32 42", "int16 -7", "int64 9000000000", "float32 2.5",
                                     "float16 0.5", "float64 0.001", "bool 1", "bool 0", "int8 -3",
                                     "uint8 200", "float32 -inf"));
}

}  // namespace
}  // namespace carve
