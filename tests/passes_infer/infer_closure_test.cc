// Functions whose types come from how they are used: MergeComposite's untyped
// composite functions, unannotated let-bound closures, recursive closures.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "tests/passes_infer/infer_test_util.h"

namespace carve::testing {
namespace {

using InferClosureTest = InferTest;

const Attrs* Composite(std::string_view name) {
  return WithAttr(EmptyAttrs(), "Composite", AttrValue::Str(name));
}

// %1 = fn (%FunctionVar_0_0, %FunctionVar_0_1, Composite="x.add_relu") {
//   nn.relu(add(%FunctionVar_0_0, %FunctionVar_0_1)) };
// %1(%a, %b)
TEST_F(InferClosureTest, UntypedCompositeTakesItsTypesFromTheCallSite) {
  const Var* p0 = V("FunctionVar_0_0");
  const Var* p1 = V("FunctionVar_0_1");
  const Call* add = Op("add", {p0, p1});
  const Call* relu = Op("nn.relu", {add});
  const Function* composite = Fn({p0, p1}, relu, nullptr, Composite("x.add_relu"));
  const Var* a = V("a", F32({1, 8}));
  const Var* b = V("b", F32({8}));
  const Call* call = CallOf(composite, {a, b});
  mod_.Add("main", Fn({a, b}, Op("exp", {call})));
  absl::Status status = InferType(mod_);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(p0), "Tensor[(1, 8), float32]");
  EXPECT_EQ(TypeOf(p1), "Tensor[(8), float32]");
  EXPECT_EQ(TypeOf(add), "Tensor[(1, 8), float32]");
  EXPECT_EQ(TypeOf(relu), "Tensor[(1, 8), float32]");
  EXPECT_EQ(TypeOf(composite),
            "fn (Tensor[(1, 8), float32], Tensor[(8), float32]) -> Tensor[(1, 8), float32]");
  EXPECT_EQ(TypeOf(call), "Tensor[(1, 8), float32]");
}

TEST_F(InferClosureTest, UntypedFunctionBoundByLetAndCalledLater) {
  const Var* p = V("p");
  const Call* body = Op("multiply", {p, p});
  const Var* f = V("f");
  const Var* x = V("x", F32({2, 2}));
  const Var* y = V("y");
  const Expr* program = LetIn(f, Fn({p}, body), LetIn(y, CallOf(f, {x}), Op("nn.relu", {y})));
  mod_.Add("main", Fn({x}, program));
  absl::Status status = InferType(mod_);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(f), "fn (Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32]");
  EXPECT_EQ(TypeOf(body), "Tensor[(2, 2), float32]");
  EXPECT_EQ(TypeOf(y), "Tensor[(2, 2), float32]");
}

TEST_F(InferClosureTest, UntypedTupleParameterIsProjectedOnceKnown) {
  const Var* t = V("t");
  const TupleGetItem* first = Get(t, 1);
  const Function* fn = Fn({t}, Op("exp", {first}));
  const Var* x = V("x", F32({3}));
  const Var* n = V("n", Scalar(DataType::Int(32)));
  const Call* call = CallOf(fn, {Tup({n, x})});
  ASSERT_TRUE(InferExprType(Fn({x, n}, call)).ok());
  EXPECT_EQ(TypeOf(first), "Tensor[(3), float32]");
  EXPECT_EQ(TypeOf(call), "Tensor[(3), float32]");
}

// The seed demo's loop: a let-bound recursive function with an annotation.
TEST_F(InferClosureTest, AnnotatedRecursiveLetBoundClosure) {
  const Type* i32 = Scalar(DataType::Int(32));
  const Type* data = F32({1, 4});
  const Type* loop_type = FuncTy(std::vector<const Type*>{i32, data}, data);
  const Var* loop = V("while_loop", loop_type);
  const Var* iter = V("iter", i32);
  const Var* d = V("d", data);
  const Call* rec = CallOf(loop, {Op("add", {iter, I32(1)}), Op("nn.relu", {d})});
  const Function* body = Fn({iter, d}, IfElse(Op("less", {iter, I32(2)}), rec, d), data);
  const Var* x = V("x", data);
  const Call* start = CallOf(loop, {I32(0), x});
  mod_.Add("main", Fn({x}, LetIn(loop, body, start), data));
  absl::Status status = InferType(mod_);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(rec), "Tensor[(1, 4), float32]");
  EXPECT_EQ(TypeOf(start), "Tensor[(1, 4), float32]");
  EXPECT_EQ(TypeOf(body), "fn (int32, Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32]");
}

// Without any annotation on the closure, its recursive call is typed by
// unification: the callee must be a function of the argument types, and its
// result comes from the other branch.
TEST_F(InferClosureTest, UnannotatedRecursiveLetBoundClosure) {
  const Type* i32 = Scalar(DataType::Int(32));
  const Var* loop = V("loop");
  const Var* i = V("i", i32);
  const Call* rec = CallOf(loop, {Op("add", {i, I32(1)})});
  const Function* body = Fn({i}, IfElse(Op("less", {i, I32(10)}), rec, Op("multiply", {i, i})));
  const Call* start = CallOf(loop, {I32(0)});
  auto type = InferExprType(LetIn(loop, body, start));
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeToString(*type), "int32");
  EXPECT_EQ(TypeOf(loop), "fn (int32) -> int32");
  EXPECT_EQ(TypeOf(rec), "int32");
}

TEST_F(InferClosureTest, DeferredRelationErrorsPointAtTheInnerCall) {
  const Var* p0 = V("p0");
  const Var* p1 = V("p1");
  const Call* add = Op("add", {p0, p1});
  const Function* composite = Fn({p0, p1}, add, nullptr, Composite("x.add"));
  const Var* a = V("a", F32({2, 3}));
  const Var* b = V("b", F32({4}));
  mod_.Add("main", Fn({a, b}, Op("nn.relu", {CallOf(composite, {a, b})})));
  absl::Status status = InferType(mod_);
  std::vector<Diagnostic> diags = StatusToDiagnostics(status);
  ASSERT_EQ(diags.size(), 1u) << RenderStatus(status);
  EXPECT_EQ(diags[0].message, "add: cannot broadcast (2, 3) and (4,)");
  EXPECT_EQ(diags[0].span.begin, add->span().begin);
}

TEST_F(InferClosureTest, ArgumentsOfAnUntypedFunctionMustAgreeAcrossCalls) {
  const Var* p = V("p");
  const Var* f = V("f");
  const Var* x = V("x", F32({3}));
  const Var* y = V("y", F32({4}));
  const Call* second = CallOf(f, {y});
  const Expr* program = LetIn(f, Fn({p}, Op("exp", {p})), Tup({CallOf(f, {x}), second}));
  auto type = InferExprType(Fn({x, y}, program));
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.status().message(),
            "%f: argument 0 has type Tensor[(4), float32] but the parameter has type "
            "Tensor[(3), float32]");
  EXPECT_EQ(StatusToDiagnostics(type.status()).front().span.begin, second->span().begin);
}

TEST_F(InferClosureTest, UncalledUntypedFunctionCannotBeTyped) {
  const Var* p = V("p");
  const Var* f = V("f");
  auto type = InferExprType(LetIn(f, Fn({p}, Op("exp", {p})), f));
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.status().message(), "cannot infer the type of %p: add a type annotation");
  EXPECT_EQ(StatusToDiagnostics(type.status()).front().span.begin, p->span().begin);
}

TEST_F(InferClosureTest, IncompleteAnnotationsAreHoles) {
  // fn (%x: _) { relu(%x) } applied to a float tensor.
  const Var* x = V("x", NewIncompleteType());
  const Function* fn = Fn({x}, Op("nn.relu", {x}));
  const Var* a = V("a", F32({5}));
  auto type = InferExprType(Fn({a}, CallOf(fn, {a})));
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeOf(x), "Tensor[(5), float32]");
}

TEST_F(InferClosureTest, PolymorphicFunctionsAreInstantiatedPerCall) {
  // fn [A](%v: A) -> A { %v } called on a tensor and on a scalar.
  const TypeVar* a = NewTypeVar("A");
  const Var* v = V("v", a);
  const Function* id = b_.MakeFunction(std::vector<const Var*>{v}, v, a, nullptr,
                                       std::vector<const TypeVar*>{a}, NextSpan());
  const Var* f = V("id");
  const Var* x = V("x", F32({2}));
  const Call* c1 = CallOf(f, {x});
  const Call* c2 = CallOf(f, {I32(1)});
  auto type = InferExprType(Fn({x}, LetIn(f, id, Tup({c1, c2}))));
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(TypeOf(c1), "Tensor[(2), float32]");
  EXPECT_EQ(TypeOf(c2), "int32");
  EXPECT_EQ(TypeOf(id), "fn [A](A) -> A");
}

}  // namespace
}  // namespace carve::testing
