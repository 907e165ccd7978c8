// ExprMutator's rebuilding of functions and IRBuilder::MakeFunctionWithParamsOf.
#include <vector>

#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/visit.h"
#include "support/arena.h"

namespace carve {
namespace {

const Type* T() { return TensorTy(DataType::Float(32), {1, 3}); }

// Replaces every call of `from` with a call of `to` over the same arguments.
class OpSwapper : public ExprMutator {
 public:
  OpSwapper(Arena* arena, const OpExpr* from, const OpExpr* to)
      : ExprMutator(arena), from_(from), to_(to) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = Rebuild(e);
    const Call* call = DynCast<Call>(post);
    if (call == nullptr || call->callee() != from_) return post;
    return builder().MakeCall(to_, call->args());
  }

 private:
  const OpExpr* from_;
  const OpExpr* to_;
};

// Replaces one variable with another.
class VarSwapper : public ExprMutator {
 public:
  VarSwapper(Arena* arena, const Var* from, const Var* to)
      : ExprMutator(arena), from_(from), to_(to) {}

 protected:
  const Expr* Rewrite(const Expr* e) override { return e == from_ ? to_ : Rebuild(e); }

 private:
  const Var* from_;
  const Var* to_;
};

TEST(MakeFunctionWithParamsOf, SharesTheParameterLists) {
  Arena arena;
  IRBuilder b(&arena);
  const Var* x = b.MakeVar("x", T());
  const Var* y = b.MakeVar("y", T());
  const Function* fn = b.MakeFunction(std::vector<const Var*>{x, y}, x, T());
  const Expr* body = b.MakeCall(GetOp("add"), {x, y});
  const Function* copy = b.MakeFunctionWithParamsOf(fn, body, nullptr, nullptr);
  EXPECT_EQ(copy->params().data(), fn->params().data());
  ASSERT_EQ(copy->params().size(), 2u);
  EXPECT_EQ(copy->params()[1], y);
  EXPECT_EQ(copy->body(), body);
  EXPECT_EQ(copy->ret_type(), nullptr);
  ASSERT_NE(copy->attrs(), nullptr);  // never null, as MakeFunction
  EXPECT_EQ(copy->attrs()->Find("Composite"), nullptr);
}

TEST(ExprMutator, RebuiltFunctionKeepsItsParameterList) {
  Arena arena;
  IRBuilder b(&arena);
  const Var* x = b.MakeVar("x", T());
  const Var* y = b.MakeVar("y", T());
  const Function* fn =
      b.MakeFunction(std::vector<const Var*>{x, y}, b.MakeCall(GetOp("add"), {x, y}), T());
  OpSwapper swap(&arena, GetOp("add"), GetOp("subtract"));
  const Function* out = Cast<Function>(swap.Mutate(fn));
  ASSERT_NE(out, fn);
  EXPECT_EQ(out->params().data(), fn->params().data());
  EXPECT_EQ(Cast<Call>(out->body())->callee(), GetOp("subtract"));
  EXPECT_EQ(out->ret_type(), fn->ret_type());
}

TEST(ExprMutator, ChangedParameterMakesANewList) {
  Arena arena;
  IRBuilder b(&arena);
  const Var* x = b.MakeVar("x", T());
  const Var* y = b.MakeVar("y", T());
  const Var* z = b.MakeVar("z", T());
  const Function* fn =
      b.MakeFunction(std::vector<const Var*>{x, y}, b.MakeCall(GetOp("add"), {x, y}), T());
  VarSwapper swap(&arena, y, z);
  const Function* out = Cast<Function>(swap.Mutate(fn));
  ASSERT_NE(out, fn);
  EXPECT_NE(out->params().data(), fn->params().data());
  ASSERT_EQ(out->params().size(), 2u);
  EXPECT_EQ(out->params()[0], x);
  EXPECT_EQ(out->params()[1], z);
  EXPECT_EQ(fn->params()[1], y);  // the input is untouched
  EXPECT_EQ(Cast<Call>(out->body())->args()[1], z);
}

TEST(ExprMutator, IdentityReturnsTheInput) {
  Arena arena;
  IRBuilder b(&arena);
  const Var* x = b.MakeVar("x", T());
  const Function* fn = b.MakeFunction(std::vector<const Var*>{x}, b.MakeCall(GetOp("abs"), {x}));
  OpSwapper swap(&arena, GetOp("add"), GetOp("subtract"));
  EXPECT_EQ(swap.Mutate(fn), fn);
}

}  // namespace
}  // namespace carve
