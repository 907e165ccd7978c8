// The dimension-sharing rules of ir/dim_sharing.h on hand-built calls: which
// inputs' dimension objects a relation's output and assigned types reuse.
#include <gtest/gtest.h>

#include <map>

#include "ir/dim_sharing.h"
#include "ir/expr.h"
#include "ir/type_relations.h"
#include "rel_test_util.h"
#include "support/arena.h"

namespace carve {
namespace {

using testing::T;

// Tokens 100 + 10 * arg + dim for the arguments, 1000, 1001, ... for new
// objects; records what the rule writes.
class FakeCall : public DimSharingCall {
 public:
  explicit FakeCall(const Call* call) : call_(call) {}
  const Call* call() const override { return call_; }
  std::vector<int64_t> ArgDims(size_t i) override {
    std::vector<int64_t> out;
    const auto* t = DynCast<TensorType>(call_->args()[i]->checked_type());
    for (size_t d = 0; t != nullptr && d < t->rank(); ++d) {
      out.push_back(100 + 10 * int64_t(i) + int64_t(d));
    }
    return out;
  }
  const DimTokens& ArgTokens(size_t i) override {
    tokens_ = DimTokens{false, ArgDims(i), {}};
    return tokens_;
  }
  int64_t Fresh() override { return next_++; }
  std::vector<int64_t> FreshDims(size_t n) override {
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i) out.push_back(next_++);
    return out;
  }
  void Assign(size_t i, std::vector<int64_t> dims) override { assigned[i] = std::move(dims); }
  void SetOut(std::vector<int64_t> dims) override { out = std::move(dims); }
  void SetOutTokens(DimTokens tokens) override { out_tokens = std::move(tokens); }

  std::map<size_t, std::vector<int64_t>> assigned;
  std::vector<int64_t> out;
  DimTokens out_tokens;

 private:
  const Call* call_;
  DimTokens tokens_;
  int64_t next_ = 1000;
};

class DimSharingTest : public ::testing::Test {
 protected:
  // A call of `op` on variables of `types`, typed `out`.
  const Call* MakeCall(std::string_view op, std::vector<const Type*> types, const Type* out,
                       const Attrs* attrs) {
    std::vector<const Expr*> args;
    for (const Type* t : types) {
      const Var* v = b_.MakeVar("x", t);
      v->set_checked_type(t);
      args.push_back(v);
    }
    const Call* call = b_.MakeCall(GetOp(op), std::span<const Expr* const>(args), attrs);
    call->set_checked_type(out);
    return call;
  }
  Arena arena_;
  IRBuilder b_{&arena_};
};

// DenseRel with units: the weight is (units, data[-1]), the output's last
// extent the units object.
TEST_F(DimSharingTest, DenseWithUnitsSharesTheUnitsObject) {
  const OpInfo* dense = FindOp("nn.dense");
  const Attrs* attrs = WithField(DefaultAttrs(dense->attrs), "units", AttrValue::Int(8));
  const Call* call = MakeCall("nn.dense", {T({2, 4}), T({8, 4})}, T({2, 8}), attrs);
  DimSharingRule rule = FindDimSharingRule(dense->type_rel);
  ASSERT_NE(rule, nullptr);
  FakeCall c(call);
  rule(c);
  EXPECT_EQ(c.out, (std::vector<int64_t>{100, 1000}));
  EXPECT_EQ(c.assigned[1], (std::vector<int64_t>{1000, 101}));
}

// BiasAddRel: the bias is given the data's axis object.
TEST_F(DimSharingTest, BiasAddAssignsTheAxisObject) {
  const OpInfo* op = FindOp("nn.bias_add");
  const Call* call = MakeCall("nn.bias_add", {T({1, 3, 5, 5}), T({3})}, T({1, 3, 5, 5}),
                              DefaultAttrs(op->attrs));
  FakeCall c(call);
  FindDimSharingRule(op->type_rel)(c);
  EXPECT_EQ(c.assigned[1], (std::vector<int64_t>{101}));
  EXPECT_EQ(c.out, (std::vector<int64_t>{100, 101, 102, 103}));
}

// Pool2DRel: N and C are the data's objects, H and W new.
TEST_F(DimSharingTest, PoolKeepsBatchAndChannel) {
  const OpInfo* op = FindOp("nn.max_pool2d");
  const Call* call =
      MakeCall("nn.max_pool2d", {T({1, 3, 8, 8})}, T({1, 3, 4, 4}), DefaultAttrs(op->attrs));
  FakeCall c(call);
  FindDimSharingRule(op->type_rel)(c);
  EXPECT_EQ(c.out, (std::vector<int64_t>{100, 101, 1002, 1003}));
}

// Relations without a rule (computed extents only) give new objects.
TEST_F(DimSharingTest, UnmodelledRelationsHaveNoRule) {
  EXPECT_EQ(FindDimSharingRule(&rel::BatchMatmul), nullptr);
  EXPECT_EQ(FindDimSharingRule(&rel::Pad), nullptr);
  EXPECT_NE(FindDimSharingRule(&rel::Conv2D), nullptr);
}

}  // namespace
}  // namespace carve
