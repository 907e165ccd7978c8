// InferType on ill-typed programs: messages, spans, and several errors per run.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "tests/passes_infer/infer_test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

class InferErrorsTest : public InferTest {
 protected:
  // Runs InferType on a module whose @main is `fn` and returns its single
  // diagnostic (failing the test when there is not exactly one).
  Diagnostic OnlyError(const Function* fn) {
    mod_.Add("main", fn);
    absl::Status status = InferType(mod_);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    std::vector<Diagnostic> diags = StatusToDiagnostics(status);
    EXPECT_EQ(diags.size(), 1u) << RenderStatus(status);
    return diags.empty() ? Diagnostic{} : diags.front();
  }
};

TEST_F(InferErrorsTest, RelationErrorsNameTheOpAtTheCall) {
  const Var* x = V("x", F32({1, 3}));
  const Var* y = V("y", F32({4}));
  const Call* bad = Op("add", {x, y});
  Diagnostic d = OnlyError(Fn({x, y}, Op("nn.relu", {bad})));
  EXPECT_EQ(d.message, "add: cannot broadcast (1, 3) and (4,)");
  EXPECT_EQ(d.span.begin, bad->span().begin);
  // The failed call and everything computed from it have no type.
  EXPECT_EQ(bad->checked_type(), nullptr);
  EXPECT_EQ(x->checked_type(), F32({1, 3}));
}

TEST_F(InferErrorsTest, ArityIsCheckedBeforeTheRelation) {
  const Var* x = V("x", F32({3}));
  const Call* bad = Op("add", {x, x, x});
  Diagnostic d = OnlyError(Fn({x}, bad));
  EXPECT_EQ(d.message, "add expects 2 arguments, got 3");
  EXPECT_EQ(d.span.begin, bad->span().begin);
  mod_.Remove("main");
  d = OnlyError(Fn({x}, Op("nn.relu", {x, x})));
  EXPECT_EQ(d.message, "nn.relu expects 1 argument, got 2");
}

TEST_F(InferErrorsTest, LetAnnotationMustMatchTheValue) {
  const Var* x = V("x", F32({3}));
  const Var* a = V("a", F32({4}));
  const Let* let = LetIn(a, Op("exp", {x}), a);
  Diagnostic d = OnlyError(Fn({x}, let));
  EXPECT_EQ(d.message,
            "let %a is annotated Tensor[(4), float32] but its value has type "
            "Tensor[(3), float32]");
  EXPECT_EQ(d.span.begin, let->span().begin);
}

TEST_F(InferErrorsTest, IfConditionAndBranches) {
  const Var* x = V("x", F32({3}));
  const Var* c = V("c", F32({3}));
  Diagnostic d = OnlyError(Fn({x, c}, IfElse(c, x, x)));
  EXPECT_EQ(d.message, "if: the condition must be a bool scalar, got Tensor[(3), float32]");
  mod_.Remove("main");
  const Var* flag = V("flag", Scalar(DataType::Bool()));
  const If* e = IfElse(flag, x, Tup({x}));
  d = OnlyError(Fn({x, flag}, e));
  EXPECT_EQ(d.message,
            "if: branches have different types: Tensor[(3), float32] and "
            "(Tensor[(3), float32],)");
  EXPECT_EQ(d.span.begin, e->span().begin);
}

TEST_F(InferErrorsTest, DeclaredReturnTypeMustMatchTheBody) {
  const Var* x = V("x", F32({1, 3}));
  const Function* fn = Fn({x}, Op("nn.relu", {x}), F32({1, 4}));
  Diagnostic d = OnlyError(fn);
  EXPECT_EQ(d.message,
            "function returns Tensor[(1, 3), float32] but is declared to return "
            "Tensor[(1, 4), float32]");
  EXPECT_EQ(d.span.begin, fn->span().begin);
}

TEST_F(InferErrorsTest, ProjectionIndexAndOperand) {
  const Var* x = V("x", F32({3}));
  const TupleGetItem* g = Get(Tup({x, x}), 3);
  Diagnostic d = OnlyError(Fn({x}, g));
  EXPECT_EQ(d.message, "tuple index 3 out of range for a 2-tuple");
  EXPECT_EQ(d.span.begin, g->span().begin);
  mod_.Remove("main");
  d = OnlyError(Fn({x}, Get(x, 0)));
  EXPECT_EQ(d.message, "cannot take field 0 of non-tuple type Tensor[(3), float32]");
}

TEST_F(InferErrorsTest, CallsOfGlobalsCheckTheirArguments) {
  const Var* z = V("z", F32({4}));
  mod_.Add("square", Fn({z}, Op("multiply", {z, z}), F32({4})));
  const Var* x = V("x", F32({3}));
  const Call* call = CallOf(mod_.GetGlobalVar("square"), {x});
  Diagnostic d = OnlyError(Fn({x}, call));
  EXPECT_EQ(d.message,
            "@square: argument 0 has type Tensor[(3), float32] but the parameter has type "
            "Tensor[(4), float32]");
  EXPECT_EQ(d.span.begin, call->span().begin);
  mod_.Remove("main");
  d = OnlyError(Fn({x}, CallOf(mod_.GetGlobalVar("square"), {x, x})));
  EXPECT_EQ(d.message, "@square expects 1 argument, got 2");
  mod_.Remove("main");
  d = OnlyError(Fn({x}, CallOf(mod_.GetGlobalVar("nowhere"), {x})));
  EXPECT_EQ(d.message, "@nowhere is not defined");
  mod_.Remove("main");
  d = OnlyError(Fn({x}, CallOf(x, {x})));
  EXPECT_EQ(d.message, "%x has type Tensor[(3), float32] and cannot be called");
}

TEST_F(InferErrorsTest, RecursiveGlobalWithoutReturnTypeIsAnError) {
  const Var* n = V("n", Scalar(DataType::Int(32)));
  const Function* f = Fn({n}, CallOf(mod_.GetGlobalVar("f"), {n}));
  mod_.Add("f", f);
  absl::Status status = InferType(mod_);
  ASSERT_FALSE(status.ok());
  std::vector<Diagnostic> diags = StatusToDiagnostics(status);
  ASSERT_EQ(diags.size(), 1u) << RenderStatus(status);
  EXPECT_EQ(diags[0].message,
            "cannot infer the return type of recursive @f: add a return type annotation");
  EXPECT_EQ(diags[0].span.begin, f->span().begin);
}

TEST_F(InferErrorsTest, MutualRecursionWithoutReturnTypesReportsEachFunction) {
  const Var* a = V("a", F32({2}));
  mod_.Add("ping", Fn({a}, CallOf(mod_.GetGlobalVar("pong"), {a})));
  const Var* b = V("b", F32({2}));
  mod_.Add("pong", Fn({b}, CallOf(mod_.GetGlobalVar("ping"), {b})));
  absl::Status status = InferType(mod_);
  EXPECT_THAT(Messages(status),
              ::testing::UnorderedElementsAre(
                  "cannot infer the return type of recursive @ping: add a return type annotation",
                  "cannot infer the return type of recursive @pong: add a return type "
                  "annotation"));
}

TEST_F(InferErrorsTest, IndependentErrorsAreAllReported) {
  // Two bad calls in one function and one in another; what depends on a bad
  // call is not reported again.
  const Var* x = V("x", F32({3}));
  const Var* y = V("y", F32({2}));
  const Call* bad1 = Op("add", {x, y});
  const Call* bad2 = Op("subtract", {y, x});
  mod_.Add("main", Fn({x, y}, Tup({Op("nn.relu", {bad1}), Op("exp", {bad2})})));
  const Var* z = V("z", F32({3}));
  mod_.Add("other", Fn({z}, Op("nn.relu", {z, z})));
  absl::Status status = InferType(mod_);
  EXPECT_THAT(Messages(status), ElementsAre("add: cannot broadcast (3,) and (2,)",
                                            "subtract: cannot broadcast (2,) and (3,)",
                                            "nn.relu expects 1 argument, got 2"));
  // The rendering is the one every carve tool uses.
  EXPECT_THAT(RenderStatus(status), ::testing::HasSubstr("infer_test.relay:1:"));
}

TEST_F(InferErrorsTest, ErrorsAreCapped) {
  const Var* x = V("x", F32({3}));
  const Var* y = V("y", F32({2}));
  std::vector<const Expr*> fields;
  for (int i = 0; i < 100; ++i) fields.push_back(Op("add", {x, y}));
  mod_.Add("main", b_.MakeFunction(std::vector<const Var*>{x, y}, b_.MakeTuple(fields)));
  std::vector<std::string> messages = Messages(InferType(mod_));
  ASSERT_EQ(messages.size(), 21u);
  EXPECT_EQ(messages.back(), "too many errors; the rest are not shown");
}

TEST_F(InferErrorsTest, UnannotatedFreeVariablesCannotBeTyped) {
  const Var* x = V("x");
  auto type = InferExprType(Op("nn.relu", {x}));
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.status().message(),
            "cannot infer the type of free variable %x: add a type annotation");
  EXPECT_EQ(StatusToDiagnostics(type.status()).front().span.begin, x->span().begin);
}

TEST_F(InferErrorsTest, OperatorsAreNotValues) {
  const Var* x = V("x", F32({3}));
  auto type = InferExprType(Tup({x, GetOp("nn.relu")}));
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.status().message(), "operator nn.relu can only be called");
}

}  // namespace
}  // namespace carve::testing
