// InferType on well-typed programs: every construct gets TVM's type.
#include "passes/infer/infer_type.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/passes_infer/infer_test_util.h"

namespace carve::testing {
namespace {

using InferTypeTest = InferTest;

TEST_F(InferTypeTest, OpCallsUseTheirTypeRelations) {
  const Var* x = V("x", F32({1, 3}));
  const Var* y = V("y", F32({4, 1, 3}));
  const Call* sum = Op("add", {x, y});
  const Call* cmp = Op("less", {sum, F(0)});
  const Call* relu = Op("nn.relu", {sum});
  mod_.Add("main", Fn({x, y}, Tup({relu, cmp})));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(x), "Tensor[(1, 3), float32]");
  EXPECT_EQ(TypeOf(sum), "Tensor[(4, 1, 3), float32]");
  EXPECT_EQ(TypeOf(cmp), "Tensor[(4, 1, 3), bool]");
  EXPECT_EQ(TypeOf(relu), "Tensor[(4, 1, 3), float32]");
  EXPECT_EQ(TypeOf(mod_.Lookup("main")),
            "fn (Tensor[(1, 3), float32], Tensor[(4, 1, 3), float32]) -> "
            "(Tensor[(4, 1, 3), float32], Tensor[(4, 1, 3), bool])");
}

TEST_F(InferTypeTest, ConstantsTupleAndProjection) {
  const Call* c = Op("add", {I32(1), I32(2)});
  const Tuple* t = Tup({c, F(1.5), Tup({})});
  const TupleGetItem* g = Get(t, 1);
  auto type = InferExprType(Tup({t, g}));
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeToString(*type), "((int32, float32, ()), float32)");
  EXPECT_EQ(TypeOf(c), "int32");
  EXPECT_EQ(TypeOf(g), "float32");
}

TEST_F(InferTypeTest, LetBindsItsVariable) {
  const Var* x = V("x", F32({2}));
  const Var* a = V("a");            // unannotated: takes the value's type
  const Var* b = V("b", F32({2}));  // annotated: checked against the value
  const Expr* body = LetIn(a, Op("exp", {x}), LetIn(b, Op("add", {a, a}), Tup({a, b})));
  mod_.Add("main", Fn({x}, body));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(a), "Tensor[(2), float32]");
  EXPECT_EQ(TypeOf(b), "Tensor[(2), float32]");
  EXPECT_EQ(TypeOf(body), "(Tensor[(2), float32], Tensor[(2), float32])");
}

TEST_F(InferTypeTest, IfTakesTheTypeOfItsBranches) {
  const Var* n = V("n", Scalar(DataType::Int(32)));
  const Call* cond = Op("less", {n, I32(10)});
  const If* e = IfElse(cond, Op("add", {n, I32(1)}), n);
  auto type = InferExprType(e);
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeToString(*type), "int32");
  EXPECT_EQ(TypeOf(cond), "bool");
}

TEST_F(InferTypeTest, FunctionLiteralsHaveFunctionTypes) {
  const Var* p = V("p", Scalar(DataType::Float(32)));
  const Function* sq = Fn({p}, Op("multiply", {p, p}), Scalar(DataType::Float(32)));
  const Var* sq_var = V("sq", nullptr);
  const Var* x = V("x", Scalar(DataType::Float(32)));
  const Call* call = CallOf(sq_var, {x});
  mod_.Add("main", Fn({x}, LetIn(sq_var, sq, call)));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(sq), "fn (float32) -> float32");
  EXPECT_EQ(TypeOf(sq_var), "fn (float32) -> float32");
  EXPECT_EQ(TypeOf(call), "float32");
}

// @main calls @sum_to (defined after it, recursive) and @square, as in the
// corpus file globals_recursion.relay.
TEST_F(InferTypeTest, GlobalsMayBeForwardReferencesAndRecursive) {
  const Type* i32 = Scalar(DataType::Int(32));
  const Var* i = V("i", i32);
  const Var* acc = V("acc", i32);
  const Call* rec =
      CallOf(mod_.GetGlobalVar("sum_to"), {Op("subtract", {i, I32(1)}), Op("add", {acc, i})});
  mod_.Add("sum_to", Fn({i, acc}, IfElse(Op("equal", {i, I32(0)}), acc, rec), i32));
  const Var* z = V("z", F32({4}));
  mod_.Add("square", Fn({z}, Op("multiply", {z, z}), F32({4})));
  const Var* m = V("m", i32);
  const Var* zz = V("zz", F32({4}));
  const Call* sum = CallOf(mod_.GetGlobalVar("sum_to"), {m, I32(0)});
  const Call* sq = CallOf(mod_.GetGlobalVar("square"), {CallOf(mod_.GetGlobalVar("square"), {zz})});
  mod_.Add("main", Fn({m, zz}, Tup({sum, sq})));
  absl::Status status = InferType(mod_);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(rec), "int32");
  EXPECT_EQ(TypeOf(sum), "int32");
  EXPECT_EQ(TypeOf(sq), "Tensor[(4), float32]");
  EXPECT_EQ(TypeOf(mod_.GetGlobalVar("square")),
            "fn (Tensor[(4), float32]) -> Tensor[(4), float32]");
}

TEST_F(InferTypeTest, MutuallyRecursiveGlobals) {
  const Type* i32 = Scalar(DataType::Int(32));
  const Type* b1 = Scalar(DataType::Bool());
  // @even(n) = if n == 0 { True } else { @odd(n - 1) }, @odd symmetric.
  auto define = [&](std::string_view name, std::string_view other, bool base) {
    const Var* n = V("n", i32);
    const Expr* base_value = b_.MakeScalar(DataType::Bool(), base ? 1 : 0);
    const Expr* rec = CallOf(mod_.GetGlobalVar(other), {Op("subtract", {n, I32(1)})});
    mod_.Add(name, Fn({n}, IfElse(Op("equal", {n, I32(0)}), base_value, rec), b1));
    return rec;
  };
  const Expr* even_rec = define("even", "odd", true);
  define("odd", "even", false);
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(even_rec), "bool");
}

TEST_F(InferTypeTest, GlobalsWithoutReturnTypesAreTypedFromTheirBodiesFirst) {
  // @main (declared) -> @a (inferred) -> @b (inferred): @b must be typed
  // before @a although its name sorts after it.
  const Var* x = V("x", F32({3}));
  const Call* call_a = CallOf(mod_.GetGlobalVar("a"), {x});
  mod_.Add("main", Fn({x}, Op("nn.relu", {call_a}), F32({3})));
  const Var* y = V("y", F32({3}));
  const Call* call_b = CallOf(mod_.GetGlobalVar("b"), {y});
  mod_.Add("a", Fn({y}, Op("exp", {call_b})));
  const Var* z = V("z", F32({3}));
  mod_.Add("b", Fn({z}, Op("add", {z, z})));
  absl::Status status = InferType(mod_);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(call_b), "Tensor[(3), float32]");
  EXPECT_EQ(TypeOf(call_a), "Tensor[(3), float32]");
  EXPECT_EQ(TypeOf(mod_.Lookup("a")), "fn (Tensor[(3), float32]) -> Tensor[(3), float32]");
}

TEST_F(InferTypeTest, InferredGlobalSignaturesFeedTheirCallers) {
  const Var* x = V("x", F32({3}));
  const Call* call = CallOf(mod_.GetGlobalVar("helper"), {x});
  mod_.Add("main", Fn({x}, call));  // no return type either
  const Var* y = V("y", F32({3}));
  mod_.Add("helper", Fn({y}, Tup({y})));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(call), "(Tensor[(3), float32],)");
  EXPECT_EQ(TypeOf(mod_.Lookup("main")), "fn (Tensor[(3), float32]) -> (Tensor[(3), float32],)");
}

TEST_F(InferTypeTest, CompilerFunctionsAreTypedLikeAnyOther) {
  const Var* x = V("x", F32({2, 2}));
  const Attrs* attrs = WithAttr(EmptyAttrs(), "Compiler", AttrValue::Str("dnnl"));
  const Call* body = Op("nn.relu", {x});
  mod_.Add("region", Fn({x}, body, F32({2, 2}), attrs));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(body), "Tensor[(2, 2), float32]");
}

TEST_F(InferTypeTest, RerunningOverwritesStaleTypes) {
  const Var* x = V("x", F32({2}));
  const Call* e = Op("exp", {x});
  mod_.Add("main", Fn({x}, e));
  e->set_checked_type(F32({7}));  // e.g. left by a pass that rewrote the graph
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(e), "Tensor[(2), float32]");
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(e), "Tensor[(2), float32]");
}

TEST_F(InferTypeTest, InferExprTypeResolvesGlobalsInTheModule) {
  const Var* z = V("z", F32({4}));
  mod_.Add("square", Fn({z}, Op("multiply", {z, z}), F32({4})));
  const Var* x = V("x", F32({4}));
  auto type = InferExprType(CallOf(mod_.GetGlobalVar("square"), {x}), &mod_);
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeToString(*type), "Tensor[(4), float32]");
  // Without the module the global cannot be resolved.
  auto alone = InferExprType(CallOf(mod_.GetGlobalVar("square"), {x}));
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.status().message(), "@square cannot be typed without its module");
}

TEST_F(InferTypeTest, DynamicDimsUnifyWithStaticOnes) {
  // let %y: Tensor[(?, 3), float32] = relu(%x: Tensor[(2, 3)]) is fine, and
  // %y takes the unified type, as in TVM's solver.
  const Var* x = V("x", F32({2, 3}));
  std::vector<Dim> dims = {Dim::Any(), Dim{3, false}};
  const Var* y = V("y", TensorTy(DataType::Float(32), dims));
  auto type = InferExprType(LetIn(y, Op("nn.relu", {x}), y));
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeToString(*type), "Tensor[(?, 3), float32]");
}

}  // namespace
}  // namespace carve::testing
