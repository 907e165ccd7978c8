// Ports of TVM v0.16 tests/python/relay/test_pass_annotate_target.py
// (tvm-reference 6.3). Not ported: test_extern_dnnl's run half and
// test_extern_dnnl_mobilenet (they execute DNNL code; the latter is skipped in
// TVM too).
#include "passes/byoc/annotate_target.h"

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "passes/byoc/annotation.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

PassPtr Annotate(std::vector<std::string> names, bool non_call_ops = true) {
  std::vector<TargetSpecPtr> targets;
  for (const std::string& n : names) targets.push_back(TargetRegistry::Global().Find(n));
  return AnnotateTarget(targets, non_call_ops);
}

TEST(AnnotateTarget, ExternDnnl) {
  RegisterTarget("test_dnnl", {"nn.conv2d", "add"});
  Module mod = ParseTyped(R"(
def @main(%data: Tensor[(1, 32, 14, 14), float32], %weight1: Tensor[(32, 1, 3, 3), float32]) {
  %0 = nn.conv2d(%data, %weight1, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  %1 = nn.conv2d(%0, %weight1, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  add(%0, %1)
})");
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(1, 32, 14, 14), float32], %weight1: Tensor[(32, 1, 3, 3), float32]) {
  %0 = annotation.compiler_begin(%data, compiler="test_dnnl");
  %1 = annotation.compiler_begin(%weight1, compiler="test_dnnl");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  %3 = annotation.compiler_end(%2, compiler="test_dnnl");
  %4 = annotation.compiler_begin(%3, compiler="test_dnnl");
  %5 = annotation.compiler_begin(%weight1, compiler="test_dnnl");
  %6 = nn.conv2d(%4, %5, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  %7 = annotation.compiler_end(%6, compiler="test_dnnl");
  %8 = annotation.compiler_end(%2, compiler="test_dnnl");
  %9 = annotation.compiler_begin(%8, compiler="test_dnnl");
  %10 = annotation.compiler_begin(%7, compiler="test_dnnl");
  %11 = add(%9, %10);
  annotation.compiler_end(%11, compiler="test_dnnl")
})");
  EXPECT_TRUE(RunOk(Annotate({"test_dnnl"}), mod));
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
}

// One compiler_end per consumer edge; unsupported ops get `default` regions.
TEST(AnnotateTarget, MultipleEnds) {
  RegisterTarget("test", {"nn.relu"});
  const char* before = R"(
def @main(%x: Tensor[(10, 10), float32]) {
  %0 = nn.relu(%x);
  %1 = abs(%0);
  %2 = abs(%0);
  add(%1, %2)
})";
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(10, 10), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="test");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="test");
  %3 = annotation.compiler_end(%1, compiler="test");
  %4 = annotation.compiler_begin(%2, compiler="default");
  %5 = annotation.compiler_begin(%3, compiler="default");
  %6 = abs(%4);
  %7 = abs(%5);
  %8 = annotation.compiler_end(%6, compiler="default");
  %9 = annotation.compiler_end(%7, compiler="default");
  %10 = annotation.compiler_begin(%8, compiler="default");
  %11 = annotation.compiler_begin(%9, compiler="default");
  %12 = add(%10, %11);
  annotation.compiler_end(%12, compiler="default")
})");
  for (bool non_call_ops : {false, true}) {
    Module mod = ParseTyped(before);
    RunOk(Annotate({"test"}, non_call_ops), mod);
    EXPECT_TRUE(SameModule(mod, expected)) << "include_non_call_ops=" << non_call_ops;
  }
}

// Checks see the checked types of the call's arguments, including rebuilt
// ones.
TEST(AnnotateTarget, TypePropagation) {
  auto spec = std::make_shared<TargetSpec>("test_type_propagation");
  int checked = 0;
  ASSERT_TRUE(spec->AddOp("nn.relu", [&checked](const Call* call) {
                    ++checked;
                    const auto* t = DynCast<TensorType>(call->args()[0]->checked_type());
                    return t != nullptr && t->dtype() == DataType::Float(32);
                  }).ok());
  for (bool non_call_ops : {false, true}) {
    checked = 0;
    Module mod = ParseTyped(R"(
def @main(%x: Tensor[(10, 10), float32]) {
  %0 = nn.relu(%x);
  nn.relu(%0)
})");
    absl::StatusOr<bool> changed = RunPass(*AnnotateTarget({spec}, non_call_ops), mod);
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_EQ(checked, 2);
    EXPECT_NE(Show(mod).find("compiler=\"test_type_propagation\""), std::string::npos);
  }
}

// test_ref_create_read_write: references take the common target of their
// operands (default here) and are closed on every edge, only with
// include_non_call_ops; otherwise only the relu is annotated.
TEST(AnnotateTarget, RefCreateReadWrite) {
  RegisterTarget("relu", {"nn.relu"});
  const char* before = R"(
def @main() {
  %0 = ref(1f);
  %1 = ref_read(%0);
  %2 = nn.relu(%1);
  ref_write(%0, %2)
})";
  Module with_refs = ParseTyped(R"(
def @main() {
  %0 = annotation.compiler_begin(1f, compiler="default");
  %1 = ref(%0);
  %2 = annotation.compiler_end(%1, compiler="default");
  %3 = annotation.compiler_begin(%2, compiler="default");
  %4 = ref_read(%3);
  %5 = annotation.compiler_end(%4, compiler="default");
  %6 = annotation.compiler_begin(%5, compiler="relu");
  %7 = nn.relu(%6);
  %8 = annotation.compiler_end(%1, compiler="default");
  %9 = annotation.compiler_end(%7, compiler="relu");
  %10 = annotation.compiler_begin(%8, compiler="default");
  %11 = annotation.compiler_begin(%9, compiler="default");
  %12 = ref_write(%10, %11);
  annotation.compiler_end(%12, compiler="default")
})");
  Module without_refs = ParseTyped(R"(
def @main() {
  %0 = ref(1f);
  %1 = ref_read(%0);
  %2 = annotation.compiler_begin(%1, compiler="relu");
  %3 = nn.relu(%2);
  %4 = annotation.compiler_end(%3, compiler="relu");
  ref_write(%0, %4)
})");
  for (bool non_call_ops : {true, false, true}) {
    Module mod = ParseTyped(before);
    RunOk(Annotate({"relu"}, non_call_ops), mod);
    EXPECT_TRUE(SameModule(mod, non_call_ops ? with_refs : without_refs))
        << "include_non_call_ops=" << non_call_ops << "\n"
        << PrintModule(mod);
  }
}

// A tuple joins the region of its inputs only with include_non_call_ops.
TEST(AnnotateTarget, Tuple) {
  RegisterTarget("test_tuple", {"nn.relu", "concatenate"});
  const char* before = R"(
def @main(%x: Tensor[(10, 5), float32], %y: Tensor[(10, 5), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%y);
  %2 = (%0, %1);
  concatenate(%2, axis=1)
})";
  Module with_tuples = ParseTyped(R"(
def @main(%x: Tensor[(10, 5), float32], %y: Tensor[(10, 5), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="test_tuple");
  %1 = annotation.compiler_begin(%y, compiler="test_tuple");
  %2 = nn.relu(%0);
  %3 = nn.relu(%1);
  %4 = annotation.compiler_end(%2, compiler="test_tuple");
  %5 = annotation.compiler_end(%3, compiler="test_tuple");
  %6 = annotation.compiler_begin(%4, compiler="test_tuple");
  %7 = annotation.compiler_begin(%5, compiler="test_tuple");
  %8 = (%6, %7);
  %9 = annotation.compiler_end(%8, compiler="test_tuple");
  %10 = annotation.compiler_begin(%9, compiler="test_tuple");
  %11 = concatenate(%10, axis=1);
  annotation.compiler_end(%11, compiler="test_tuple")
})");
  Module without_tuples = ParseTyped(R"(
def @main(%x: Tensor[(10, 5), float32], %y: Tensor[(10, 5), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="test_tuple");
  %1 = annotation.compiler_begin(%y, compiler="test_tuple");
  %2 = nn.relu(%0);
  %3 = nn.relu(%1);
  %4 = annotation.compiler_end(%2, compiler="test_tuple");
  %5 = annotation.compiler_end(%3, compiler="test_tuple");
  %6 = (%4, %5);
  %7 = annotation.compiler_begin(%6, compiler="test_tuple");
  %8 = concatenate(%7, axis=1);
  annotation.compiler_end(%8, compiler="test_tuple")
})");
  for (bool non_call_ops : {false, true}) {
    Module mod = ParseTyped(before);
    RunOk(Annotate({"test_tuple"}, non_call_ops), mod);
    EXPECT_TRUE(SameModule(mod, non_call_ops ? with_tuples : without_tuples))
        << "include_non_call_ops=" << non_call_ops;
  }
}

// A composite's prefix names its target; its body is not entered.
TEST(AnnotateTarget, CompositeFunction) {
  RegisterTarget("test", {"nn.relu"});
  Module mod = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = fn (%in_1: Tensor[(10, 10), float32], %in_2: Tensor[(10, 10), float32],
           Composite="test.add_relu") {
    %1 = add(%in_1, %in_2);
    nn.relu(%1)
  };
  %0(%a, %b)
})");
  Module expected = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = fn (%in_1: Tensor[(10, 10), float32], %in_2: Tensor[(10, 10), float32],
           Composite="test.add_relu") {
    %1 = add(%in_1, %in_2);
    nn.relu(%1)
  };
  %2 = annotation.compiler_begin(%a, compiler="test");
  %3 = annotation.compiler_begin(%b, compiler="test");
  %4 = %0(%2, %3);
  annotation.compiler_end(%4, compiler="test")
})");
  RunOk(Annotate({"test"}), mod);
  EXPECT_TRUE(SameModule(mod, expected));
}

// A composite whose name has no `.` (or names no requested target) stays on
// the host.
TEST(AnnotateTarget, CompositeWithoutTargetPrefixStaysDefault) {
  RegisterTarget("test", {"nn.relu"});
  Module mod = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32]) {
  %0 = fn (%p: Tensor[(10, 10), float32], Composite="test_add") { nn.relu(%p) };
  %0(%a)
})");
  RunOk(Annotate({"test"}), mod);
  EXPECT_EQ(Show(mod).find("compiler=\"test\""), std::string::npos) << Show(mod);
}

TEST(AnnotateTarget, DoubleTargetIsIdempotent) {
  RegisterTarget("double.A", {"nn.relu"});
  for (bool non_call_ops : {true, false}) {
    Module mod = ParseTyped("def @main(%x: Tensor[(10, 5), float32]) { nn.relu(%x) }");
    RunOk(Annotate({"double.A"}, non_call_ops), mod);
    Module once = mod;
    RunOk(Annotate({"double.A"}, non_call_ops), mod);
    EXPECT_TRUE(SameModule(mod, once));
  }
}

TEST(AnnotateTarget, DifferentTargets) {
  RegisterTarget("different.A", {"nn.relu"});
  RegisterTarget("different.B", {"add"});
  const char* before = R"(
def @main(%x: Tensor[(10, 5), float32]) {
  %0 = nn.relu(%x);
  add(%0, %0)
})";
  for (bool non_call_ops : {true, false}) {
    Module twice = ParseTyped(before);
    RunOk(Annotate({"different.A"}, non_call_ops), twice);
    RunOk(Annotate({"different.B"}, non_call_ops), twice);
    Module both = ParseTyped(before);
    RunOk(Annotate({"different.A", "different.B"}, non_call_ops), both);
    EXPECT_TRUE(SameModule(twice, both)) << "include_non_call_ops=" << non_call_ops;
  }
}

// A second run for another target keeps the first run's annotations.
TEST(AnnotateTarget, MultipleRuns) {
  RegisterTarget("A", {"nn.relu"});
  RegisterTarget("B", {"add"});
  const char* before = R"(
def @main(%x: Tensor[(10, 5), float32]) {
  %0 = nn.relu(%x);
  %1 = abs(%0);
  %2 = nn.relu(%0);
  add(%1, %2)
})";
  for (bool non_call_ops : {true, false}) {
    Module twice = ParseTyped(before);
    RunOk(Annotate({"A"}, non_call_ops), twice);
    RunOk(Annotate({"B"}, non_call_ops), twice);
    Module both = ParseTyped(before);
    RunOk(Annotate({"A", "B"}, non_call_ops), both);
    EXPECT_TRUE(SameModule(twice, both)) << "include_non_call_ops=" << non_call_ops;
  }
}

TEST(AnnotateTarget, EndsWithTuple) {
  RegisterTarget("clip", {"clip"});
  auto before = [](bool get_item) {
    return std::string(R"(
def @main(%a: Tensor[(1, 16, 16, 4), uint8]) {
  %0 = clip(%a, a_min=0f, a_max=255f);
  %1 = clip(%0, a_min=0f, a_max=15f);
  %2 = clip(%0, a_min=16f, a_max=31f);
  %3 = (%2, %1);
)") + (get_item ? "  %3.1\n}" : "  %3\n}");
  };
  const std::string prefix = R"(
def @main(%a: Tensor[(1, 16, 16, 4), uint8]) {
  %0 = annotation.compiler_begin(%a, compiler="clip");
  %1 = clip(%0, a_min=0f, a_max=255f);
  %2 = annotation.compiler_end(%1, compiler="clip");
  %3 = annotation.compiler_begin(%2, compiler="clip");
  %4 = clip(%3, a_min=0f, a_max=15f);
  %5 = annotation.compiler_end(%4, compiler="clip");
  %7 = annotation.compiler_end(%1, compiler="clip");
  %8 = annotation.compiler_begin(%7, compiler="clip");
  %9 = clip(%8, a_min=16f, a_max=31f);
  %10 = annotation.compiler_end(%9, compiler="clip");
)";
  const std::string annotated_tuple = R"(
  %6 = annotation.compiler_begin(%5, compiler="clip");
  %11 = annotation.compiler_begin(%10, compiler="clip");
  %12 = (%11, %6);
  %13 = annotation.compiler_end(%12, compiler="clip");
)";
  const std::string expected[2][2] = {
      // include_non_call_ops = false: get_item = false, true
      {prefix + "  (%10, %5)\n}", prefix + "  %12 = (%10, %5);\n  %12.1\n}"},
      // include_non_call_ops = true
      {prefix + annotated_tuple + "  %13\n}",
       prefix + annotated_tuple +
           "  %14 = annotation.compiler_begin(%13, compiler=\"clip\");\n  %15 = %14.1;\n"
           "  annotation.compiler_end(%15, compiler=\"clip\")\n}"}};
  for (bool get_item : {true, false}) {
    for (bool non_call_ops : {false, true}) {
      Module mod = ParseTyped(before(get_item));
      RunOk(Annotate({"clip"}, non_call_ops), mod);
      Module want = ParseTyped(expected[non_call_ops][get_item]);
      EXPECT_TRUE(SameModule(mod, want))
          << "include_non_call_ops=" << non_call_ops << " get_item=" << get_item;
    }
  }
}

// The if itself stays on the host: its condition and branches are closed.
TEST(AnnotateTarget, IfElse) {
  RegisterTarget("test_if_else", {"equal", "tanh", "sigmoid", "erf"});
  const char* before = R"(
def @main(%data: Tensor[(1, 32), float32], %e1: float32, %e2: float32) {
  %0 = equal(%e1, %e2);
  %1 = if (%0) { tanh(%data) } else { sigmoid(%data) };
  erf(%1)
})";
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(1, 32), float32], %e1: float32, %e2: float32) {
  %0 = annotation.compiler_begin(%e1, compiler="test_if_else");
  %1 = annotation.compiler_begin(%e2, compiler="test_if_else");
  %2 = equal(%0, %1);
  %3 = annotation.compiler_end(%2, compiler="test_if_else");
  %4 = if (%3) {
    %5 = annotation.compiler_begin(%data, compiler="test_if_else");
    %6 = tanh(%5);
    annotation.compiler_end(%6, compiler="test_if_else")
  } else {
    %7 = annotation.compiler_begin(%data, compiler="test_if_else");
    %8 = sigmoid(%7);
    annotation.compiler_end(%8, compiler="test_if_else")
  };
  %9 = annotation.compiler_begin(%4, compiler="test_if_else");
  %10 = erf(%9);
  annotation.compiler_end(%10, compiler="test_if_else")
})");
  for (bool non_call_ops : {true, false}) {
    Module mod = ParseTyped(before);
    RunOk(Annotate({"test_if_else"}, non_call_ops), mod);
    EXPECT_TRUE(SameModule(mod, expected)) << "include_non_call_ops=" << non_call_ops;
  }
}

// A while loop written as a let-bound recursive function: the let value (a
// function literal) is left alone, the loop calls stay on the host.
TEST(AnnotateTarget, WhileLet) {
  RegisterTarget("test_while_let", {"less", "add", "zeros_like"});
  const char* before = R"(
def @main(%var1: Tensor[(2), float32]) {
  let %while_loop: fn (int32, Tensor[(2), float32]) -> Tensor[(2), float32] =
    fn (%var2: int32, %var3: Tensor[(2), float32]) -> Tensor[(2), float32] {
      %0 = less(%var2, 10);
      if (%0) {
        %1 = add(%var2, 1);
        %2 = add(%var3, %var1);
        %while_loop(%1, %2)
      } else {
        %var3
      }
    };
  %3 = zeros_like(%var1);
  %while_loop(0, %3)
})";
  // {0}: the target annotation; {1}/{2}: how a value is opened for / closed
  // after a call of the loop (only with include_non_call_ops).
  const char* expected = R"(
def @main(%var1: Tensor[(2), float32]) {{
  let %while_loop: fn (int32, Tensor[(2), float32]) -> Tensor[(2), float32] =
    fn (%var2: int32, %var3: Tensor[(2), float32]) -> Tensor[(2), float32] {{
      %0 = annotation.compiler_begin(%var2, {0});
      %1 = annotation.compiler_begin(10, {0});
      %2 = less(%0, %1);
      %3 = annotation.compiler_end(%2, {0});
      if (%3) {{
        %4 = annotation.compiler_begin(%var2, {0});
        %5 = annotation.compiler_begin(1, {0});
        %6 = add(%4, %5);
        %7 = annotation.compiler_end(%6, {0});
        %9 = annotation.compiler_begin(%var3, {0});
        %10 = annotation.compiler_begin(%var1, {0});
        %11 = add(%9, %10);
        %12 = annotation.compiler_end(%11, {0});
        {2}%while_loop({1}%7{3}, {1}%12{3}){3}
      }} else {{
        %var3
      }}
    }};
  %16 = annotation.compiler_begin(%var1, {0});
  %17 = zeros_like(%16);
  %18 = annotation.compiler_end(%17, {0});
  {2}%while_loop({1}0{3}, {1}%18{3}){3}
}})";
  for (bool non_call_ops : {false, true}) {
    Module mod = ParseTyped(before);
    RunOk(Annotate({"test_while_let"}, non_call_ops), mod);
    std::string want =
        non_call_ops
            ? fmt::format(fmt::runtime(expected), "compiler=\"test_while_let\"", "annotation.compiler_begin(",
                          "annotation.compiler_end(", ", compiler=\"default\")")
            : fmt::format(fmt::runtime(expected), "compiler=\"test_while_let\"", "", "", "");
    EXPECT_TRUE(SameModule(mod, ParseTyped(want))) << "include_non_call_ops=" << non_call_ops;
  }
}

TEST(AnnotateTarget, IfFreeVars) {
  RegisterTarget("test_if_free_vars", {"equal", "sigmoid", "erf"});
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(1, 32), float32], %e1: float32, %e2: float32) {
  %0 = annotation.compiler_begin(%e1, compiler="test_if_free_vars");
  %1 = annotation.compiler_begin(%e2, compiler="test_if_free_vars");
  %2 = equal(%0, %1);
  %3 = annotation.compiler_end(%2, compiler="test_if_free_vars");
  %4 = if (%3) {
    zeros(shape=[1, 32], dtype="float32")
  } else {
    %5 = annotation.compiler_begin(%data, compiler="test_if_free_vars");
    %6 = sigmoid(%5);
    annotation.compiler_end(%6, compiler="test_if_free_vars")
  };
  %7 = annotation.compiler_begin(%4, compiler="test_if_free_vars");
  %8 = erf(%7);
  annotation.compiler_end(%8, compiler="test_if_free_vars")
})");
  for (bool non_call_ops : {true, false}) {
    Module mod = ParseTyped(R"(
def @main(%data: Tensor[(1, 32), float32], %e1: float32, %e2: float32) {
  %0 = equal(%e1, %e2);
  %1 = if (%0) { zeros(shape=[1, 32], dtype="float32") } else { sigmoid(%data) };
  erf(%1)
})");
    RunOk(Annotate({"test_if_free_vars"}, non_call_ops), mod);
    EXPECT_TRUE(SameModule(mod, expected)) << "include_non_call_ops=" << non_call_ops;
  }
}

// Calls without arguments and empty tuples get no annotation on their own.
TEST(AnnotateTarget, FreeVarsZerosAndEmptyTuple) {
  RegisterTarget("test_free_vars_zeros", {});
  for (const char* text : {"def @main() { zeros(shape=[0], dtype=\"float32\") }",
                           "def @main() { () }"}) {
    for (bool non_call_ops : {true, false}) {
      Module mod = ParseTyped(text);
      Module original = ParseTyped(text);
      RunOk(Annotate({"test_free_vars_zeros"}, non_call_ops), mod);
      EXPECT_TRUE(SameModule(mod, original)) << text;
    }
  }
}

// Functions that already belong to an external compiler are not annotated.
TEST(AnnotateTarget, SkipsCompilerFunctions) {
  RegisterTarget("test", {"nn.relu"});
  Module mod = ParseTyped(R"(
def @f(%x: Tensor[(2), float32], Compiler="other") { nn.relu(%x) }
def @main(%x: Tensor[(2), float32]) { @f(%x) }
)");
  RunOk(Annotate({"test"}), mod);
  EXPECT_EQ(Show(mod).find("compiler=\"test\""), std::string::npos) << Show(mod);
}

// A composite called twice is classified once (when first visited) and both
// calls take its target; the prefix may name any requested target.
TEST(AnnotateTarget, SharedCompositeOfSecondTarget) {
  RegisterTarget("first", {"nn.relu"});
  RegisterTarget("second", {"abs"});
  Module mod = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32]) {
  %0 = fn (%p: Tensor[(10, 10), float32], Composite="second.relu") { nn.relu(%p) };
  %1 = %0(%a);
  %0(%1)
})");
  Module expected = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32]) {
  %0 = fn (%p: Tensor[(10, 10), float32], Composite="second.relu") { nn.relu(%p) };
  %1 = annotation.compiler_begin(%a, compiler="second");
  %2 = %0(%1);
  %3 = annotation.compiler_end(%2, compiler="second");
  %4 = annotation.compiler_begin(%3, compiler="second");
  %5 = %0(%4);
  annotation.compiler_end(%5, compiler="second")
})");
  RunOk(Annotate({"first", "second"}), mod);
  EXPECT_TRUE(SameModule(mod, expected)) << Show(mod);
}

// The attributes-once form builds the same annotation as MakeCompilerBegin /
// MakeCompilerEnd.
TEST(AnnotateTarget, AnnotationWithLookedUpAttrs) {
  Module mod = ParseTyped("def @main(%x: Tensor[(10, 5), float32]) { nn.relu(%x) }");
  IRBuilder b = mod.builder();
  const Expr* arg = mod.Lookup("main")->body();
  for (const OpExpr* op : {CompilerBeginOp(), CompilerEndOp()}) {
    const Attrs* attrs = CompilerAnnotationAttrs(op, "tgt");
    EXPECT_EQ(CompilerAnnotationAttrs(op, "tgt"), attrs);  // interned
    const Call* made = MakeCompilerAnnotation(b, op, arg, attrs);
    const Call* reference = op == CompilerBeginOp() ? MakeCompilerBegin(b, arg, "tgt")
                                                    : MakeCompilerEnd(b, arg, "tgt");
    EXPECT_EQ(made->callee(), reference->callee());
    EXPECT_EQ(made->attrs(), reference->attrs());
    EXPECT_EQ(AnnotationTarget(made), "tgt");
    EXPECT_EQ(made->checked_type(), arg->checked_type());
    ASSERT_EQ(made->args().size(), 1u);
    EXPECT_EQ(made->args()[0], arg);
  }
}

}  // namespace
}  // namespace carve::testing
