// ToANormalForm recurses as deep as the expression (TVM's algorithm, run on
// a thread with a large stack): a chain of 200,000 ops converts and converts
// back without overflowing the stack.
#include <string>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "passes/simplify/a_normal_form.h"
#include "passes/simplify/graph_normal_form.h"

namespace carve {
namespace {

TEST(ToANormalForm, DeepChainBindsEveryOpOnce) {
  constexpr int kOps = 200000;
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n";
  text += "  %0 = nn.relu(%x);\n";
  for (int i = 1; i < kOps; ++i) text += fmt::format("  %{} = nn.relu(%{});\n", i, i - 1);
  text += fmt::format("  %{}\n}}\n", kOps - 1);
  absl::StatusOr<Module> mod = ParseModule("chain.relay", std::move(text));
  ASSERT_TRUE(mod.ok()) << mod.status();
  const Function* anf = ToANormalFormFunction(mod->Lookup("main"), mod->arena());
  int lets = 0;
  PostOrderVisit(anf, [&](const Expr* e) { lets += Isa<Let>(e); });
  EXPECT_EQ(lets, kOps);
  const Function* back = InlineLets(anf, mod->arena());
  int calls = 0;
  PostOrderVisit(back, [&](const Expr* e) { calls += Isa<Call>(e) && !Isa<Let>(e); });
  EXPECT_EQ(calls, kOps);
}

}  // namespace
}  // namespace carve
