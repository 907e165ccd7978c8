// Each construct of the text format, printed from hand-built IR, and the
// graph-normal-form rules: what is inlined, what is bound to `%N`, and in
// which order the numbers are allocated.
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using testing::Bool;
using testing::F32;
using testing::FnOf;
using testing::I32;
using testing::TestBuilder;
using testing::TupleOf;

PrintOptions Bare() {
  PrintOptions options;
  options.header = false;
  return options;
}

PrintOptions BareTyped() {
  PrintOptions options = Bare();
  options.show_types = true;
  return options;
}

class PrinterConstructs : public ::testing::Test {
 protected:
  Module mod_;
  TestBuilder b_{&mod_};
};

TEST_F(PrinterConstructs, EmptyModuleIsTheHeader) {
  EXPECT_EQ(PrintModule(mod_), "#[version = \"0.0.5\"]\n");
  EXPECT_EQ(PrintModule(mod_, Bare()), "");
}

TEST_F(PrinterConstructs, DefinitionsSortedAndSeparatedByABlankLine) {
  const Var* x = b_.Untyped("x");
  b_.Def("zeta", {x}, x);
  b_.Def("alpha", {}, b_.Int(1));
  EXPECT_EQ(PrintModule(mod_),
            "#[version = \"0.0.5\"]\n"
            "def @alpha() {\n"
            "  1\n"
            "}\n"
            "\n"
            "def @zeta(%x) {\n"
            "  %x\n"
            "}\n");
}

TEST_F(PrinterConstructs, SignatureWithTypesAttrsAndTypeParams) {
  const Var* x = b_.Param("x", F32({1, 3}));
  const Var* n = b_.Untyped("n");
  const TypeVar* a = NewTypeVar("A");
  const Attrs* attrs = testing::FnAttrs({{"Primitive", AttrValue::Int(1)}});
  std::vector<const Var*> params = {x, n};
  mod_.Add("f", mod_.builder().MakeFunction(params, x, F32({1, 3}), attrs,
                                            std::span<const TypeVar* const>(&a, 1)));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @f[A](%x: Tensor[(1, 3), float32], %n, Primitive=1) -> Tensor[(1, 3), float32] {\n"
            "  %x\n"
            "}\n");
  // With types, params carry the comment; the def's closing brace does not.
  EXPECT_EQ(PrintModule(mod_, BareTyped()),
            "def @f[A](%x: Tensor[(1, 3), float32] /* ty=Tensor[(1, 3), float32] */, %n, "
            "Primitive=1) -> Tensor[(1, 3), float32] {\n"
            "  %x\n"
            "}\n");
}

// Every non-atomic node but the tail is bound, in post-order; the tail is
// inlined; atoms (vars, constants, ops, globals) are never bound.
TEST_F(PrinterConstructs, ChainBindsAllButTheTail) {
  const Var* x = b_.Param("x", F32());
  const Expr* e = b_.Op("nn.relu", {b_.Op("add", {b_.Op("exp", {x}), b_.Int(2)})});
  b_.Def("main", {x}, e);
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  %0 = exp(%x);\n"
            "  %1 = add(%0, 2);\n"
            "  nn.relu(%1)\n"
            "}\n");
}

// A node used twice is bound once and referenced twice (multiply(%0, %0)).
TEST_F(PrinterConstructs, SharedNodeBoundOnce) {
  const Var* x = b_.Param("x", F32());
  const Expr* shared = b_.Op("exp", {x});
  b_.Def("main", {x}, b_.Op("multiply", {shared, shared}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  %0 = exp(%x);\n"
            "  multiply(%0, %0)\n"
            "}\n");
}

// Arguments are numbered left to right, each after its own operands; the
// callee is visited first but a bound callee gets its number after the
// arguments (TVM prints the args before the op).
TEST_F(PrinterConstructs, CalleeNumberedAfterArguments) {
  const Var* x = b_.Param("x", F32());
  const Var* p = b_.Param("p", F32());
  const Function* fn = b_.Fn({p}, b_.Op("negative", {b_.Op("exp", {p})}), F32(), nullptr, false);
  const Expr* call = b_.Apply(fn, {b_.Op("exp", {x}), b_.Op("log", {x})});
  b_.Def("main", {x}, b_.Op("nn.relu", {call}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  %1 = exp(%x);\n"
            "  %2 = log(%x);\n"
            "  %3 = fn (%p: float32) -> float32 {\n"
            "    %0 = exp(%p);\n"
            "    negative(%0)\n"
            "  };\n"
            "  %4 = %3(%1, %2);\n"
            "  nn.relu(%4)\n"
            "}\n");
}

TEST_F(PrinterConstructs, TuplesAndProjections) {
  const Var* x = b_.Param("x", F32());
  const Expr* one = b_.Tup({x});
  const Expr* empty = b_.Tup({});
  const Expr* pair = b_.Tup({one, empty});
  b_.Def("main", {x}, b_.Tup({b_.Get(pair, 0), b_.Get(pair, 1), b_.Tup({x, x})}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  %0 = (%x,);\n"
            "  %1 = ();\n"
            "  %2 = (%0, %1);\n"
            "  %3 = %2.0;\n"
            "  %4 = %2.1;\n"
            "  %5 = (%x, %x);\n"
            "  (%3, %4, %5)\n"
            "}\n");
}

// Let chains print one line per link; the bindings a value needs come right
// before its line; a single-use value is inlined.
TEST_F(PrinterConstructs, LetChain) {
  const Var* x = b_.Param("x", F32());
  const Var* a = b_.Param("a", F32());
  const Var* c = b_.Untyped("c");
  const Expr* body = b_.LetIn(
      a, b_.Op("exp", {x}),
      b_.LetIn(c, b_.Op("add", {b_.Op("log", {a}), a}), b_.Op("multiply", {c, b_.Op("exp", {c})})));
  b_.Def("main", {x}, body);
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  let %a: float32 = exp(%x);\n"
            "  %0 = log(%a);\n"
            "  let %c = add(%0, %a);\n"
            "  %1 = exp(%c);\n"
            "  multiply(%c, %1)\n"
            "}\n");
}

// A let value used elsewhere too is bound first: `let %v = %0;`.
TEST_F(PrinterConstructs, LetValueUsedTwiceIsBound) {
  const Var* x = b_.Param("x", F32());
  const Var* v = b_.Untyped("v");
  const Expr* value = b_.Op("exp", {x});
  b_.Def("main", {x}, b_.LetIn(v, value, b_.Op("add", {v, value})));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  %0 = exp(%x);\n"
            "  let %v = %0;\n"
            "  add(%v, %0)\n"
            "}\n");
}

// A let that is not the tail of its scope is bound, wrapped in parentheses;
// the bindings its first value needs stay outside (TVM's layout).
TEST_F(PrinterConstructs, NonTailLetIsParenthesised) {
  const Var* x = b_.Param("x", F32());
  const Var* v = b_.Untyped("v");
  const Expr* let = b_.LetIn(v, b_.Op("exp", {b_.Op("log", {x})}), b_.Op("negative", {v}));
  b_.Def("main", {x}, b_.Op("add", {let, x}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  %0 = log(%x);\n"
            "  %1 = (\n"
            "    let %v = exp(%0);\n"
            "    negative(%v)\n"
            "  );\n"
            "  add(%1, %x)\n"
            "}\n");
}

// An `if` at the tail is inlined; one used as an argument is bound (and gets
// no type comment); its condition is always bound.
TEST_F(PrinterConstructs, IfInlineAndBound) {
  const Var* c = b_.Param("c", Bool());
  const Var* x = b_.Param("x", F32());
  const Expr* cond = b_.Op("logical_not", {c}, Bool());
  const Expr* branch = b_.IfElse(cond, b_.Op("exp", {x}, F32()), x);
  b_.Def("f", {c, x}, branch, F32());
  b_.Def("g", {c, x}, b_.Op("negative", {b_.IfElse(c, x, b_.Op("exp", {x}, F32()))}, F32()), F32());
  EXPECT_EQ(PrintModule(mod_, BareTyped()),
            "def @f(%c: bool /* ty=bool */, %x: float32 /* ty=float32 */) -> float32 {\n"
            "  %0 = logical_not(%c) /* ty=bool */;\n"
            "  if (%0) {\n"
            "    exp(%x) /* ty=float32 */\n"
            "  } else {\n"
            "    %x\n"
            "  }\n"
            "}\n"
            "\n"
            "def @g(%c1: bool /* ty=bool */, %x1: float32 /* ty=float32 */) -> float32 {\n"
            "  %1 = if (%c1) {\n"
            "    %x1\n"
            "  } else {\n"
            "    exp(%x1) /* ty=float32 */\n"
            "  };\n"
            "  negative(%1) /* ty=float32 */\n"
            "}\n");
}

// A fn literal bound by let gets its type comment after the closing brace and
// the variable its annotation and comment.
TEST_F(PrinterConstructs, FunctionLiteralBoundByLet) {
  const Var* x = b_.Param("x", F32());
  const Var* p = b_.Param("p", F32());
  const Var* sq = b_.Param("sq", FnOf({F32()}, F32()));
  const Function* fn = b_.Fn({p}, b_.Op("multiply", {p, p}, F32()), F32());
  b_.Def("main", {x}, b_.LetIn(sq, fn, b_.Apply(sq, {x}, F32())), F32());
  EXPECT_EQ(PrintModule(mod_, BareTyped()),
            "def @main(%x: float32 /* ty=float32 */) -> float32 {\n"
            "  let %sq: fn (float32) -> float32 /* ty=fn (float32) -> float32 */ = "
            "fn (%p: float32 /* ty=float32 */) -> float32 {\n"
            "    multiply(%p, %p) /* ty=float32 */\n"
            "  } /* ty=fn (float32) -> float32 */;\n"
            "  %sq(%x) /* ty=float32 */\n"
            "}\n");
}

// Sequencing (`e1; e2`) is a let of an unnamed variable: `%v`.
TEST_F(PrinterConstructs, UnnamedLetVariable) {
  const Var* x = b_.Param("x", F32());
  b_.Def("main", {x}, b_.LetIn(b_.Untyped(""), b_.Op("exp", {x}), x));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: float32) {\n"
            "  let %v = exp(%x);\n"
            "  %x\n"
            "}\n");
}

TEST_F(PrinterConstructs, ExpressionDeclaresFreeVars) {
  const Var* x = b_.Param("x", F32({2}));
  const Var* y = b_.Untyped("y");
  const Expr* e = b_.Op("add", {b_.Op("exp", {x}), y});
  EXPECT_EQ(PrintExpr(e, Bare()),
            "free_var %x: Tensor[(2), float32];\n"
            "%0 = exp(%x);\n"
            "free_var %y;\n"
            "add(%0, %y)");
  EXPECT_EQ(PrintExpr(e),
            "#[version = \"0.0.5\"]\n"
            "free_var %x: Tensor[(2), float32];\n"
            "%0 = exp(%x);\n"
            "free_var %y;\n"
            "add(%0, %y)");
}

TEST_F(PrinterConstructs, ExpressionOfOneAtom) {
  EXPECT_EQ(PrintExpr(b_.Int(3), Bare()), "3");
  EXPECT_EQ(PrintExpr(GetOp("add"), Bare()), "add");
  EXPECT_EQ(PrintExpr(mod_.GetGlobalVar("f"), Bare()), "@f");
  EXPECT_EQ(PrintExpr(b_.Param("x", F32()), BareTyped()),
            "free_var %x: float32 /* ty=float32 */;\n%x");
}

// The %N counter runs across the functions of a module.
TEST_F(PrinterConstructs, NumbersContinueAcrossDefinitions) {
  const Var* x = b_.Param("x", F32());
  b_.Def("a", {x}, b_.Op("negative", {b_.Op("exp", {x})}));
  const Var* y = b_.Param("y", F32());
  b_.Def("b", {y}, b_.Op("negative", {b_.Op("exp", {y})}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @a(%x: float32) {\n"
            "  %0 = exp(%x);\n"
            "  negative(%0)\n"
            "}\n"
            "\n"
            "def @b(%y: float32) {\n"
            "  %1 = exp(%y);\n"
            "  negative(%1)\n"
            "}\n");
}

// Types print as comments only when requested; vars print their annotation
// either way.
TEST_F(PrinterConstructs, TypeCommentsOnlyWithShowTypes) {
  const Var* x = b_.Param("x", F32({3}));
  const Expr* t = b_.Tup({b_.Op("exp", {x}, F32({3})), b_.Int(1)}, TupleOf({F32({3}), I32()}));
  b_.Def("main", {x}, b_.Get(t, 0, F32({3})), F32({3}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @main(%x: Tensor[(3), float32]) -> Tensor[(3), float32] {\n"
            "  %0 = exp(%x);\n"
            "  %1 = (%0, 1);\n"
            "  %1.0\n"
            "}\n");
  EXPECT_EQ(PrintModule(mod_, BareTyped()),
            "def @main(%x: Tensor[(3), float32] /* ty=Tensor[(3), float32] */) -> "
            "Tensor[(3), float32] {\n"
            "  %0 = exp(%x) /* ty=Tensor[(3), float32] */;\n"
            "  %1 = (%0, 1 /* ty=int32 */) /* ty=(Tensor[(3), float32], int32) */;\n"
            "  %1.0 /* ty=Tensor[(3), float32] */\n"
            "}\n");
}

// A node shared by two definitions is printed in each (TVM would refer to the
// other function's %N).
TEST_F(PrinterConstructs, NodeSharedBetweenDefinitionsIsPrintedInEach) {
  const Var* x = b_.Untyped("x");
  const Expr* shared = b_.Op("exp", {b_.Op("log", {x})});
  b_.Def("a", {x}, shared);
  b_.Def("b", {x}, b_.Op("negative", {shared}));
  EXPECT_EQ(PrintModule(mod_, Bare()),
            "def @a(%x) {\n"
            "  %0 = log(%x);\n"
            "  exp(%0)\n"
            "}\n"
            "\n"
            "def @b(%x1) {\n"
            "  %1 = log(%x1);\n"
            "  %2 = exp(%1);\n"
            "  negative(%2)\n"
            "}\n");
}

}  // namespace
}  // namespace carve
