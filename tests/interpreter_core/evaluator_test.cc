// The evaluator on hand-built IR (no InferType: output types come from the
// type relations at run time): dataflow sharing, let / if / tuples,
// closures, global and let-bound recursion (tail and non-tail), a
// million-node chain, memory release, argument checking, missing kernels.
#include "interpreter/evaluator.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Small IR-building conveniences over a module's builder.
class EvalTest : public ::testing::Test {
 protected:
  const Expr* Op(const char* name, std::initializer_list<const Expr*> args,
                 const Attrs* attrs = nullptr) {
    const OpExpr* op = GetOp(name);
    EXPECT_NE(op, nullptr) << name;
    return b_.MakeCall(op, args, attrs);
  }
  const Var* V(const char* name, const Type* t) { return b_.MakeVar(name, t); }
  const Expr* I32(int32_t v) { return b_.MakeScalar(DataType::Int(32), v); }
  const Function* Fn(std::initializer_list<const Var*> params, const Expr* body,
                     const Attrs* attrs = nullptr) {
    std::vector<const Var*> p(params);
    return b_.MakeFunction(p, body, nullptr, attrs);
  }
  const Expr* CallFn(const Expr* callee, std::initializer_list<const Expr*> args) {
    return b_.MakeCall(callee, args);
  }

  absl::StatusOr<Value> Run(std::vector<Value> args, InterpreterOptions opts = {}) {
    interp_ = std::make_unique<Interpreter>(mod_, std::move(opts));
    return interp_->Run("main", args);
  }

  const Type* f32x3_ = TensorTy(DataType::Float(32), {3});
  const Type* i32_ = ScalarTy(DataType::Int(32));
  Module mod_;
  IRBuilder b_ = mod_.builder();
  std::unique_ptr<Interpreter> interp_;
};

TEST_F(EvalTest, SharedNodeIsEvaluatedOnce) {
  const Var* x = V("x", f32x3_);
  const Var* y = V("y", f32x3_);
  const Expr* m = Op("multiply", {x, y});
  mod_.Add("main", Fn({x, y}, Op("add", {m, m})));
  auto out = Run({Tensor<float>({3}, {1, 2, 3}), Tensor<float>({3}, {4, 5, 6})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(8, 20, 36));
  EXPECT_EQ(interp_->stats().kernel_calls, 2);
}

TEST_F(EvalTest, LetIfTuplesAndProjections) {
  const Var* c = V("c", ScalarTy(DataType::Bool()));
  const Var* x = V("x", f32x3_);
  const Var* t = V("t", nullptr);
  const Expr* tuple = b_.MakeTuple(std::vector<const Expr*>{x, Op("negative", {x})});
  const Expr* body =
      b_.MakeLet(t, tuple, b_.MakeIf(c, b_.MakeTupleGetItem(t, 0), b_.MakeTupleGetItem(t, 1)));
  mod_.Add("main", Fn({c, x}, body));
  auto yes = Run({Tensor<bool>({}, {true}), Tensor<float>({3}, {1, -2, 3})});
  auto no = Run({Tensor<bool>({}, {false}), Tensor<float>({3}, {1, -2, 3})});
  CARVE_ASSERT_OK(yes);
  CARVE_ASSERT_OK(no);
  EXPECT_THAT(Values<float>(yes->tensor()), ElementsAre(1, -2, 3));
  EXPECT_THAT(Values<float>(no->tensor()), ElementsAre(-1, 2, -3));
}

TEST_F(EvalTest, TupleResultsFlattenInOrder) {
  const Var* x = V("x", f32x3_);
  const Expr* inner = b_.MakeTuple(std::vector<const Expr*>{Op("negative", {x}), x});
  mod_.Add("main", Fn({x}, b_.MakeTuple(std::vector<const Expr*>{inner, Op("exp", {x})})));
  interp_ = std::make_unique<Interpreter>(mod_);
  std::vector<NDArray> args = {Tensor<float>({3}, {0, 0, 0})};
  auto flat = interp_->RunFlat("main", args);
  CARVE_ASSERT_OK(flat);
  ASSERT_EQ(flat->size(), 3u);
  EXPECT_THAT(Values<float>((*flat)[0]), ElementsAre(-0.0f, -0.0f, -0.0f));
  EXPECT_THAT(Values<float>((*flat)[2]), ElementsAre(1, 1, 1));
}

TEST_F(EvalTest, ClosureCapturesItsEnvironment) {
  // let %f = fn (%y) { add(%x, %y) }; (%f(%z), %f(%f(%z)))
  const Var* x = V("x", f32x3_);
  const Var* z = V("z", f32x3_);
  const Var* y = V("y", f32x3_);
  const Var* f = V("f", nullptr);
  const Expr* fz = CallFn(f, {z});
  const Expr* body = b_.MakeLet(f, Fn({y}, Op("add", {x, y})),
                                b_.MakeTuple(std::vector<const Expr*>{fz, CallFn(f, {fz})}));
  mod_.Add("main", Fn({x, z}, body));
  auto out = Run({Tensor<float>({3}, {10, 20, 30}), Tensor<float>({3}, {1, 2, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->fields()[0].tensor()), ElementsAre(11, 22, 33));
  EXPECT_THAT(Values<float>(out->fields()[1].tensor()), ElementsAre(21, 42, 63));
}

TEST_F(EvalTest, ClosuresAsValuesAndGlobalReferences) {
  // @twice(%g, %v) = %g(%g(%v)); @main(%x) = @twice(@neg_exp... ) with a
  // global function passed as a value.
  const Var* g = V("g", nullptr);
  const Var* v = V("v", nullptr);
  mod_.Add("twice", Fn({g, v}, CallFn(g, {CallFn(g, {v})})));
  const Var* a = V("a", f32x3_);
  mod_.Add("double", Fn({a}, Op("add", {a, a})));
  const Var* x = V("x", f32x3_);
  mod_.Add("main", Fn({x}, CallFn(mod_.GetGlobalVar("twice"), {mod_.GetGlobalVar("double"), x})));
  auto out = Run({Tensor<float>({3}, {1, 2, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(4, 8, 12));
}

// @loop(%i, %acc) = if (equal(%i, 0)) { %acc } else { @loop(%i - 1, %acc + 1) }
void AddCountdown(Module& mod, IRBuilder& b) {
  const Type* i32 = ScalarTy(DataType::Int(32));
  const Var* i = b.MakeVar("i", i32);
  const Var* acc = b.MakeVar("acc", i32);
  const Expr* one = b.MakeScalar(DataType::Int(32), 1);
  const Expr* zero = b.MakeScalar(DataType::Int(32), 0);
  const Expr* recur = b.MakeCall(mod.GetGlobalVar("loop"), {b.MakeCall(GetOp("subtract"), {i, one}),
                                                            b.MakeCall(GetOp("add"), {acc, one})});
  const Expr* body = b.MakeIf(b.MakeCall(GetOp("equal"), {i, zero}), acc, recur);
  mod.Add("loop", b.MakeFunction(std::vector<const Var*>{i, acc}, body));
}

TEST_F(EvalTest, GlobalTailRecursionRunsInConstantFrames) {
  AddCountdown(mod_, b_);
  const Var* n = V("n", i32_);
  mod_.Add("main", Fn({n}, CallFn(mod_.GetGlobalVar("loop"), {n, I32(0)})));
  auto out = Run({Tensor<int32_t>({}, {100000})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(out->tensor()), ElementsAre(100000));
  EXPECT_LE(interp_->stats().max_frame_depth, 2);
  EXPECT_GE(interp_->stats().tail_calls, 100000);
}

TEST_F(EvalTest, DeepNonTailRecursionUsesTheHeap) {
  // @f(%i) = if (equal(%i, 0)) { 0 } else { add(@f(%i - 1), 2) }
  const Var* i = V("i", i32_);
  const Expr* rec = CallFn(mod_.GetGlobalVar("f"), {Op("subtract", {i, I32(1)})});
  mod_.Add("f", Fn({i}, b_.MakeIf(Op("equal", {i, I32(0)}), I32(0), Op("add", {rec, I32(2)}))));
  const Var* n = V("n", i32_);
  mod_.Add("main", Fn({n}, CallFn(mod_.GetGlobalVar("f"), {n})));
  auto out = Run({Tensor<int32_t>({}, {100000})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(out->tensor()), ElementsAre(200000));
  EXPECT_GT(interp_->stats().max_frame_depth, 100000);
}

TEST_F(EvalTest, LetBoundRecursiveClosureLoop) {
  // The seed demo's shape: let %while_loop = fn (%i, %d) {
  //   if (less(%i, 3)) { %while_loop(add(%i, 1), nn.relu(add(%d, %d))) } else { %d } };
  // %while_loop(0, %x), with %x captured-free and the loop var recursive.
  const Var* loop = V("while_loop", nullptr);
  const Var* i = V("i", i32_);
  const Var* d = V("d", f32x3_);
  const Expr* step = CallFn(loop, {Op("add", {i, I32(1)}), Op("nn.relu", {Op("add", {d, d})})});
  const Function* fn = Fn({i, d}, b_.MakeIf(Op("less", {i, I32(3)}), step, d));
  const Var* x = V("x", f32x3_);
  mod_.Add("main", Fn({x}, b_.MakeLet(loop, fn, CallFn(loop, {I32(0), x}))));
  auto out = Run({Tensor<float>({3}, {1, -1, 0.5})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(8, 0, 4));
  EXPECT_LE(interp_->stats().max_frame_depth, 2);
}

TEST_F(EvalTest, MillionNodeChain) {
  const Var* x = V("x", f32x3_);
  const Expr* e = x;
  const Expr* one = b_.MakeConstant(Tensor<float>({3}, {1, 1, 1}));
  for (int k = 0; k < 500000; ++k) e = Op("add", {Op("negative", {e}), one});
  mod_.Add("main", Fn({x}, e));
  auto out = Run({Tensor<float>({3}, {0, 1, 2})});
  CARVE_ASSERT_OK(out);
  // Each (negative, add 1) pair maps v to 1 - v; 500000 pairs: identity.
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(0, 1, 2));
  EXPECT_EQ(interp_->stats().kernel_calls, 1000000);
}

TEST_F(EvalTest, MillionLetChain) {
  const Var* x = V("x", f32x3_);
  std::vector<const Var*> vars = {x};
  for (int k = 0; k < 1000000; ++k) vars.push_back(V("v", nullptr));
  // let %v1 = negative(%x); let %v2 = negative(%v1); ... %vN, built inside out.
  const Expr* body = vars.back();
  for (size_t k = vars.size() - 1; k > 0; --k) {
    body = b_.MakeLet(vars[k], Op("negative", {vars[k - 1]}), body);
  }
  mod_.Add("main", Fn({x}, body));
  auto out = Run({Tensor<float>({3}, {1, 2, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(1, 2, 3));
  // Each binding is dropped after its one read: at most two are held.
  EXPECT_LE(interp_->stats().peak_retained_bytes, 2 * 12);
}

TEST_F(EvalTest, SharedValuesAreReleasedAfterTheirLastConsumer) {
  // 100 rounds of %a = negative(%prev); %prev' = add(%a, %a): each %a has
  // two consumers and must be retained only between them.
  const Type* big = TensorTy(DataType::Float(32), {1000});
  const Var* x = V("x", big);
  const Expr* e = x;
  for (int k = 0; k < 100; ++k) {
    const Expr* a = Op("negative", {e});
    e = Op("add", {a, a});
  }
  mod_.Add("main", Fn({x}, e));
  auto out = Run({NDArray::Empty(DataType::Float(32), {1000})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(interp_->stats().kernel_calls, 200);
  // The parameter (read once, 4000 bytes) plus one shared value at a time.
  EXPECT_LE(interp_->stats().peak_retained_bytes, 8000);
  EXPECT_GE(interp_->stats().peak_retained_bytes, 4000);
}

TEST_F(EvalTest, WrongArgumentsNameTheParameter) {
  const Var* x = V("x", f32x3_);
  const Var* n = V("n", i32_);
  mod_.Add("main", Fn({x, n}, x));
  auto count = Run({Tensor<float>({3}, {1, 2, 3})});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(count.status().message()), HasSubstr("expects 2 argument(s), got 1"));
  auto shape = Run({Tensor<float>({2}, {1, 2}), Tensor<int32_t>({}, {1})});
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(std::string(shape.status().message()), HasSubstr("argument 'x'"));
  EXPECT_THAT(std::string(shape.status().message()), HasSubstr("Tensor[(3), float32]"));
  auto dtype = Run({Tensor<float>({3}, {1, 2, 3}), Tensor<int64_t>({}, {1})});
  ASSERT_FALSE(dtype.ok());
  EXPECT_THAT(std::string(dtype.status().message()), HasSubstr("argument 'n'"));
  EXPECT_FALSE(Interpreter(mod_).Run("nope", {}).ok());
  auto ok = Run({Tensor<float>({3}, {1, 2, 3}), Tensor<int32_t>({}, {1})});
  CARVE_ASSERT_OK(ok);  // the body is the parameter itself
  EXPECT_THAT(Values<float>(ok->tensor()), ElementsAre(1, 2, 3));
}

TEST_F(EvalTest, DynamicDimsAcceptAnyExtent) {
  std::vector<Dim> dims = {Dim::Any(), Dim{2, false}};
  const Var* x = V("x", TensorTy(DataType::Float(32), dims));
  mod_.Add(
      "main",
      Fn({x}, Op("sum", {x},
                 WithField(DefaultAttrs(FindOp("sum")->attrs), "axis", AttrValue::Ints({0})))));
  auto out = Run({Tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(9, 12));
}

TEST_F(EvalTest, CheckedTypesAreUsedWhenStatic) {
  const Var* x = V("x", f32x3_);
  const Expr* neg = Op("negative", {x});
  neg->set_checked_type(f32x3_);
  mod_.Add("main", Fn({x}, neg));
  auto out = Run({Tensor<float>({3}, {1, 2, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(-1, -2, -3));
}

TEST_F(EvalTest, MissingKernelIsUnimplemented) {
  const Var* x = V("x", f32x3_);
  mod_.Add("main", Fn({x}, Op("exp", {x})));
  KernelFn saved = FindKernel("exp");
  RegisterKernel("exp", nullptr);
  auto out = Run({Tensor<float>({3}, {1, 2, 3})});
  RegisterKernel("exp", saved);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("no kernel for op 'exp'"));
}

TEST_F(EvalTest, KernelErrorsPropagate) {
  const Var* x = V("x", TensorTy(DataType::Int(32), {2}));
  mod_.Add("main", Fn({x}, Op("divide", {x, x})));
  auto out = Run({Tensor<int32_t>({2}, {1, 0})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("division by zero"));
}

}  // namespace
}  // namespace carve::testing
