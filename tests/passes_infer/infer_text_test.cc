// InferType on Relay text: what `carve check` and `carve fmt --types` show.
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

// Parses `text` (which must parse) and runs InferType on it.
absl::Status Check(const std::string& name, const std::string& text, Module* out = nullptr) {
  absl::StatusOr<Module> mod = ParseModule(name, text);
  EXPECT_TRUE(mod.ok()) << RenderStatus(mod.status());
  if (!mod.ok()) return mod.status();
  absl::Status status = InferType(*mod);
  if (out != nullptr) *out = std::move(*mod);
  return status;
}

std::string PrintTyped(const Module& mod) {
  PrintOptions options;
  options.show_types = true;
  return PrintModule(mod, options);
}

TEST(InferTextTest, UntypedCompositeFunctionGetsTypesFromItsCall) {
  Module mod;
  absl::Status status = Check("composite.relay", R"(#[version = "0.0.5"]
def @main(%a: Tensor[(1, 8), float32], %b: Tensor[(8), float32]) {
  %1 = fn (%FunctionVar_0_0, %FunctionVar_0_1, Composite="x.add_relu") {
    %0 = add(%FunctionVar_0_0, %FunctionVar_0_1);
    nn.relu(%0)
  };
  %1(%a, %b)
}
)",
                              &mod);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(PrintTyped(mod), R"(#[version = "0.0.5"]
def @main(%a: Tensor[(1, 8), float32] /* ty=Tensor[(1, 8), float32] */, %b: Tensor[(8), float32] /* ty=Tensor[(8), float32] */) {
  %1 = fn (%FunctionVar_0_0 /* ty=Tensor[(1, 8), float32] */, %FunctionVar_0_1 /* ty=Tensor[(8), float32] */, Composite="x.add_relu") {
    %0 = add(%FunctionVar_0_0, %FunctionVar_0_1) /* ty=Tensor[(1, 8), float32] */;
    nn.relu(%0) /* ty=Tensor[(1, 8), float32] */
  } /* ty=fn (Tensor[(1, 8), float32], Tensor[(8), float32]) -> Tensor[(1, 8), float32] */;
  %1(%a, %b) /* ty=Tensor[(1, 8), float32] */
}
)");
}

TEST(InferTextTest, ErrorsRenderWithLineColumnAndCaret) {
  absl::Status status = Check("bad.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3), float32], %y: Tensor[(4), float32]) {
  %0 = add(%x, %y);
  nn.relu(%0)
}
)");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(RenderStatus(status),
            "bad.relay:3:8: error: add: cannot broadcast (1, 3) and (4,)\n"
            "    %0 = add(%x, %y);\n"
            "         ^\n");
}

// Diagnostics come in source order, whatever order the functions are typed in
// (@main before @f here: @main has no return type, so it is typed first).
TEST(InferTextTest, SeveralFunctionsSeveralErrors) {
  absl::Status status = Check("two.relay", R"(#[version = "0.0.5"]
def @f(%x: Tensor[(3), float32]) -> Tensor[(4), float32] {
  nn.relu(%x)
}
def @main(%c: Tensor[(3), float32]) {
  if (%c) { %c } else { @f(%c) }
}
)");
  std::vector<std::string> messages;
  for (const Diagnostic& d : StatusToDiagnostics(status)) messages.push_back(d.message);
  EXPECT_THAT(messages, ::testing::ElementsAre(
                            "function returns Tensor[(3), float32] but is declared to return "
                            "Tensor[(4), float32]",
                            "if: the condition must be a bool scalar, got Tensor[(3), float32]",
                            "if: branches have different types: Tensor[(3), float32] and "
                            "Tensor[(4), float32]"));
}

TEST(InferTextTest, GlobalsWithoutSignaturesAndForwardReferences) {
  Module mod;
  absl::Status status = Check("globals.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  @double(@double(%x))
}
def @double(%y: Tensor[(2), float32]) {
  add(%y, %y)
}
)",
                              &mod);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_THAT(PrintTyped(mod), HasSubstr("@double(%0) /* ty=Tensor[(2), float32] */"));
}

TEST(InferTextTest, RecursiveLetBoundClosureWithoutAnnotations) {
  Module mod;
  absl::Status status = Check("loop.relay", R"(#[version = "0.0.5"]
def @main(%n: int32) {
  let %loop = fn (%i: int32, %acc: float32) {
    if (less(%i, %n)) { %loop(add(%i, 1), multiply(%acc, 2f)) } else { %acc }
  };
  %loop(0, 1f)
}
)",
                              &mod);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_THAT(PrintTyped(mod), HasSubstr("/* ty=fn (int32, float32) -> float32 */"));
}

}  // namespace
}  // namespace carve

namespace carve {
namespace {

// InferType lists the functions where a node below the function itself lacks
// an annotation (the only ones FillMissingTypeAnnotations must scan); a
// missing return type of the function itself does not count.
TEST(InferTextTest, ListsFunctionsWithUnannotatedNodes) {
  absl::StatusOr<Module> mod = ParseModule("t.relay", R"(#[version = "0.0.5"]
def @f(%x: Tensor[(2), float32]) {
  tanh(%x)
}
def @g(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  %0 = fn (%y: Tensor[(2), float32]) { %y };
  %0(%x)
}
def @main(%x: Tensor[(2), float32]) {
  let %y = @f(%x);
  @g(%y)
})");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  UnannotatedFunctions unannotated;
  ASSERT_TRUE(InferType(*mod, &unannotated).ok());
  EXPECT_FALSE(unannotated.contains(mod->Lookup("f")));
  EXPECT_TRUE(unannotated.contains(mod->Lookup("g")));  // the literal's return type
  EXPECT_TRUE(unannotated.contains(mod->Lookup("main")));  // %y
  EXPECT_EQ(unannotated.size(), 2u);
}

TEST(InferTextTest, RepeatedRelationsKeepTheirArgumentTypes) {
  // The same op and attributes on arguments of many shapes, interleaved, so
  // that the typer's memo of recent relations meets each key again and many
  // keys share its slots: every call must keep the type of its own inputs.
  std::string text = "#[version = \"0.0.5\"]\ndef @main(";
  constexpr int kShapes = 300;
  for (int s = 1; s <= kShapes; ++s) {
    text += fmt::format("%a{}: Tensor[({}, 2), float32], ", s, s);
  }
  text += "%z: Tensor[(1), int32]) {\n";
  int n = 0;
  for (int round = 0; round < 3; ++round) {
    for (int s = 1; s <= kShapes; ++s) text += fmt::format("  %{} = add(%a{}, %a{});\n", n++, s, s);
  }
  text += "  (%0, %299, %300, %899)\n}\n";
  Module mod;
  ASSERT_TRUE(Check("repeat.relay", text, &mod).ok());
  const Function* main = mod.Lookup("main");
  const Type* result = main->body()->checked_type();
  EXPECT_EQ(TypeToString(result),
            "(Tensor[(1, 2), float32], Tensor[(300, 2), float32], Tensor[(1, 2), float32], "
            "Tensor[(300, 2), float32])");
}

}  // namespace
}  // namespace carve
