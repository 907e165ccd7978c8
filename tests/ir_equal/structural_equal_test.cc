// Structural equality and hashing modulo variable names.
#include "ir/structural_equal.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/structural_hash.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

class StructuralEqualTest : public ::testing::Test {
 protected:
  const Type* T(std::initializer_list<int64_t> shape) {
    return TensorTy(DataType::Float(32), shape);
  }
  const Var* V(std::string_view name, const Type* type = nullptr) {
    return b_.MakeVar(name, type ? type : T({1, 3}));
  }
  const Call* Op(std::string_view op, std::initializer_list<const Expr*> args,
                 const Attrs* attrs = nullptr) {
    return b_.MakeCall(GetOp(op), args, attrs);
  }
  const Function* Fn(std::initializer_list<const Var*> params, const Expr* body,
                     const Type* ret = nullptr, const Attrs* attrs = nullptr) {
    return b_.MakeFunction(std::vector<const Var*>(params), body, ret, attrs);
  }
  const Constant* Const(std::vector<float> values) {
    NDArray a = NDArray::Empty(DataType::Float(32), {int64_t(values.size())});
    for (size_t i = 0; i < values.size(); ++i) a.SetFromDouble(i, values[i]);
    return b_.MakeConstant(a);
  }
  // Equality must imply equal hashes: check it wherever equality holds.
  void ExpectEqual(const Expr* a, const Expr* b, const EqualOptions& options = {}) {
    auto diff = StructuralDiffExprs(a, b, options);
    EXPECT_FALSE(diff.has_value()) << diff->lhs_path << ": " << diff->message;
    EXPECT_TRUE(StructuralEqual(b, a, options));
    if (!options.ignore_types) {
      EXPECT_EQ(StructuralHash(a), StructuralHash(b));
    }
  }
  StructuralDiff ExpectDiff(const Expr* a, const Expr* b, const EqualOptions& options = {}) {
    auto diff = StructuralDiffExprs(a, b, options);
    EXPECT_TRUE(diff.has_value());
    EXPECT_FALSE(StructuralEqual(b, a, options)) << "equality must be symmetric";
    return diff.value_or(StructuralDiff{});
  }

  Module mod_;
  IRBuilder b_ = mod_.builder();
};

TEST_F(StructuralEqualTest, AlphaEquivalentFunctionsAreEqual) {
  const Var* x = V("x");
  const Var* y = V("y");
  ExpectEqual(Fn({x}, Op("nn.relu", {x})), Fn({y}, Op("nn.relu", {y})));
}

TEST_F(StructuralEqualTest, VariableCorrespondenceIsABijection) {
  const Var* x = V("x");
  const Var* y = V("y");
  const Var* a = V("a");
  const Var* b = V("b");
  // fn (%x, %y) { %x - %y }  vs  fn (%a, %b) { %b - %a }
  StructuralDiff diff =
      ExpectDiff(Fn({x, y}, Op("subtract", {x, y})), Fn({a, b}, Op("subtract", {b, a})));
  EXPECT_EQ(diff.lhs_path, "<root>.body.args[0]");
  EXPECT_EQ(diff.message, "%x corresponds to %a elsewhere, not to %b");
  // fn (%x, %y) { %x + %x }  vs  fn (%a, %b) { %a + %b }
  ExpectDiff(Fn({x, y}, Op("add", {x, x})), Fn({a, b}, Op("add", {a, b})));
  // Two lhs vars may not both map to one rhs var.
  ExpectDiff(Fn({x, y}, Op("add", {x, y})), Fn({a, b}, Op("add", {a, a})));
}

TEST_F(StructuralEqualTest, FreeVariablesAreMappedOnFirstEncounter) {
  const Var* x = V("x");
  const Var* y = V("y");
  const Var* a = V("a");
  const Var* b = V("b");
  ExpectEqual(Op("add", {x, y}), Op("add", {a, b}));
  ExpectEqual(Op("add", {x, y}), Op("add", {b, a}));
  ExpectEqual(Op("add", {x, x}), Op("add", {a, a}));
  StructuralDiff diff = ExpectDiff(Op("add", {x, x}), Op("add", {a, b}));
  EXPECT_EQ(diff.lhs_path, "<root>.args[1]");
}

TEST_F(StructuralEqualTest, VariableTypesMatterUnlessIgnored) {
  const Var* x = V("x", T({1, 3}));
  const Var* y = V("y", T({1, 4}));
  StructuralDiff diff = ExpectDiff(Fn({x}, x), Fn({y}, y));
  EXPECT_EQ(diff.lhs_path, "<root>.params[0].type");
  EXPECT_EQ(diff.message,
            "types of %x and %y differ: Tensor[(1, 3), float32] vs Tensor[(1, 4), float32]");
  ExpectEqual(Fn({x}, x), Fn({y}, y), EqualOptions{.ignore_types = true});
  // An unannotated variable differs from an annotated one.
  ExpectDiff(Fn({x}, x), Fn({b_.MakeVar("z")}, x));
}

TEST_F(StructuralEqualTest, ReturnTypesMatterUnlessIgnored) {
  const Var* x = V("x");
  StructuralDiff diff = ExpectDiff(Fn({x}, x, T({1, 3})), Fn({x}, x, T({1, 4})));
  EXPECT_EQ(diff.lhs_path, "<root>.ret_type");
  ExpectEqual(Fn({x}, x, T({1, 3})), Fn({x}, x, nullptr), EqualOptions{.ignore_types = true});
}

TEST_F(StructuralEqualTest, ConstantsCompareDtypeShapeAndBytes) {
  const Var* x = V("x", T({3}));
  ExpectEqual(Op("add", {x, Const({1, 2, 3})}), Op("add", {x, Const({1, 2, 3})}));
  StructuralDiff diff =
      ExpectDiff(Op("add", {x, Const({1, 2, 3})}), Op("add", {x, Const({1, 5, 3})}));
  EXPECT_EQ(diff.lhs_path, "<root>.args[1].data");
  EXPECT_EQ(diff.message, "constant values differ at element 1: 2 vs 5");
  diff = ExpectDiff(Const({1, 2}), Const({1, 2, 3}));
  EXPECT_EQ(diff.message, "constant shapes differ: (2,) vs (3,)");
  diff = ExpectDiff(b_.MakeScalar(DataType::Int(32), 1), b_.MakeScalar(DataType::Int(64), 1));
  EXPECT_EQ(diff.message, "constant dtypes differ: int32 vs int64");
  EXPECT_NE(StructuralHash(Const({1, 2})), StructuralHash(Const({1, 3})));
}

TEST_F(StructuralEqualTest, CallAttributesCompareEntryByEntry) {
  const Var* x = V("x");
  const OpInfo* begin = FindOp("annotation.compiler_begin");
  ASSERT_NE(begin, nullptr);
  auto with = [&](std::string_view compiler) {
    return WithField(DefaultAttrs(begin->attrs), "compiler", AttrValue::Str(compiler));
  };
  ExpectEqual(Op("annotation.compiler_begin", {x}, with("dnnl")),
              Op("annotation.compiler_begin", {x}, with("dnnl")));
  StructuralDiff diff = ExpectDiff(Op("annotation.compiler_begin", {x}, with("dnnl")),
                                   Op("annotation.compiler_begin", {x}, with("acl")));
  EXPECT_EQ(diff.lhs_path, "<root>.attrs.compiler");
  EXPECT_EQ(diff.message, "attribute compiler differs: \"dnnl\" vs \"acl\"");
}

TEST_F(StructuralEqualTest, FunctionAttributesAreADictionary) {
  const Var* x = V("x");
  const Attrs* ab =
      WithAttr(WithAttr(EmptyAttrs(), "A", AttrValue::Int(1)), "B", AttrValue::Str("b"));
  const Attrs* ba =
      WithAttr(WithAttr(EmptyAttrs(), "B", AttrValue::Str("b")), "A", AttrValue::Int(1));
  ExpectEqual(Fn({x}, x, nullptr, ab), Fn({x}, x, nullptr, ba));
  const Attrs* a_only = WithAttr(EmptyAttrs(), "A", AttrValue::Int(1));
  StructuralDiff diff = ExpectDiff(Fn({x}, x, nullptr, ab), Fn({x}, x, nullptr, a_only));
  EXPECT_EQ(diff.lhs_path, "<root>.attrs.B");
  EXPECT_EQ(diff.message, "attribute B is missing on the right");
  const Attrs* a2 = WithAttr(EmptyAttrs(), "A", AttrValue::Int(2));
  diff = ExpectDiff(Fn({x}, x, nullptr, a_only), Fn({x}, x, nullptr, a2));
  EXPECT_EQ(diff.message, "attribute A differs: 1 vs 2");
}

TEST_F(StructuralEqualTest, CalleesAndKinds) {
  const Var* x = V("x");
  StructuralDiff diff = ExpectDiff(Op("add", {x, x}), Op("subtract", {x, x}));
  EXPECT_EQ(diff.lhs_path, "<root>.callee");
  EXPECT_EQ(diff.message, "callees differ: add vs subtract");
  diff = ExpectDiff(Op("nn.relu", {x}), x);
  EXPECT_EQ(diff.message, "expressions differ: a call vs a variable");
  diff = ExpectDiff(Op("add", {x, x}), Op("add", {x, x, x}));
  EXPECT_EQ(diff.message, "calls have 2 and 3 arguments");
  // Globals compare by name.
  const Expr* f = b_.MakeGlobalVar("f");
  const Expr* f2 = b_.MakeGlobalVar("f");
  ExpectEqual(b_.MakeCall(f, {x}), b_.MakeCall(f2, {x}));
  diff = ExpectDiff(b_.MakeCall(f, {x}), b_.MakeCall(b_.MakeGlobalVar("g"), {x}));
  EXPECT_EQ(diff.lhs_path, "<root>.callee");
  EXPECT_EQ(diff.message, "globals differ: @f vs @g");
}

TEST_F(StructuralEqualTest, TuplesProjectionsLetsAndIfs) {
  const Var* x = V("x");
  const Expr* pair = b_.MakeTuple(std::vector<const Expr*>{x, x});
  StructuralDiff diff = ExpectDiff(b_.MakeTupleGetItem(pair, 0), b_.MakeTupleGetItem(pair, 1));
  EXPECT_EQ(diff.lhs_path, "<root>.index");
  diff = ExpectDiff(pair, b_.MakeTuple(std::vector<const Expr*>{x}));
  EXPECT_EQ(diff.message, "tuples have 2 and 1 fields");

  const Var* l1 = V("l1");
  const Var* l2 = V("l2");
  ExpectEqual(b_.MakeLet(l1, Op("nn.relu", {x}), l1), b_.MakeLet(l2, Op("nn.relu", {x}), l2));
  diff = ExpectDiff(b_.MakeLet(l1, Op("nn.relu", {x}), l1),
                    b_.MakeLet(l2, Op("nn.relu", {x}), Op("exp", {l2})));
  EXPECT_EQ(diff.lhs_path, "<root>.body");

  const Var* c = V("c", ScalarTy(DataType::Bool()));
  diff = ExpectDiff(b_.MakeIf(c, x, Op("exp", {x})), b_.MakeIf(c, x, Op("nn.relu", {x})));
  EXPECT_EQ(diff.lhs_path, "<root>.else_branch.callee");
}

TEST_F(StructuralEqualTest, RecursiveLetBoundClosure) {
  // let %f = fn (%i) { %f(%i) }; %f(%x)  -- twice with different names
  auto make = [&](std::string_view f_name, std::string_view i_name) {
    const Var* f = b_.MakeVar(f_name);
    const Var* i = V(i_name);
    const Var* x = V("x");
    const Expr* fn = Fn({i}, b_.MakeCall(f, {i}));
    return b_.MakeLet(f, fn, b_.MakeCall(f, {x}));
  };
  ExpectEqual(make("f", "i"), make("loop", "n"));
}

TEST_F(StructuralEqualTest, DagSharingIsSignificantForGraphNodes) {
  const Var* x = V("x");
  const Expr* shared = Op("nn.relu", {x});
  const Expr* dag = Op("add", {shared, shared});
  const Expr* tree = Op("add", {Op("nn.relu", {x}), Op("nn.relu", {x})});
  // As in TVM: one shared call cannot correspond to two distinct calls.
  StructuralDiff diff = ExpectDiff(dag, tree);
  EXPECT_EQ(diff.lhs_path, "<root>.args[1]");
  EXPECT_THAT(diff.message, HasSubstr("DAG sharing differs"));
  ExpectDiff(tree, dag);
  const Expr* shared2 = Op("nn.relu", {x});
  ExpectEqual(dag, Op("add", {shared2, shared2}));
  // Constants and projections are values: sharing them does not matter.
  const Expr* c = Const({1, 2, 3});
  ExpectEqual(Op("add", {c, c}), Op("add", {Const({1, 2, 3}), Const({1, 2, 3})}));
  const Expr* pair = b_.MakeTuple(std::vector<const Expr*>{x, x});
  const Expr* item = b_.MakeTupleGetItem(pair, 0);
  ExpectEqual(Op("add", {item, item}),
              Op("add", {b_.MakeTupleGetItem(pair, 0), b_.MakeTupleGetItem(pair, 0)}));
}

TEST_F(StructuralEqualTest, DiffReportsSpansOfTheDifferingNodes) {
  const Var* x = V("x");
  Span left{7, 10, 20};
  Span right{8, 30, 40};
  const Expr* a = b_.MakeCall(GetOp("nn.relu"), {b_.MakeCall(GetOp("exp"), {x}, nullptr, left)});
  const Expr* b =
      b_.MakeCall(GetOp("nn.relu"), {b_.MakeCall(GetOp("add"), {x, x}, nullptr, right)});
  StructuralDiff diff = ExpectDiff(a, b);
  EXPECT_EQ(diff.lhs_path, "<root>.args[0].callee");
  EXPECT_EQ(diff.lhs_span.begin, 10u);
  EXPECT_EQ(diff.rhs_span.begin, 30u);
}

class StructuralModuleTest : public StructuralEqualTest {
 protected:
  // def @main(%x) { @helper(%x) + %x }, def @helper(%y) { relu(%y) }
  Module MakeModule(std::string_view helper_op, const Type* param_type) {
    Module m;
    IRBuilder b = m.builder();
    const Var* y = b.MakeVar("y", T({1, 3}));
    m.Add("helper", b.MakeFunction(std::vector<const Var*>{y}, b.MakeCall(GetOp(helper_op), {y})));
    const Var* x = b.MakeVar("x", param_type);
    const Expr* call = b.MakeCall(m.GetGlobalVar("helper"), {x});
    m.Add("main", b.MakeFunction(std::vector<const Var*>{x}, b.MakeCall(GetOp("add"), {call, x})));
    return m;
  }
};

TEST_F(StructuralModuleTest, EqualModules) {
  Module a = MakeModule("nn.relu", T({1, 3}));
  Module b = MakeModule("nn.relu", T({1, 3}));
  EXPECT_FALSE(StructuralDiffModules(a, b).has_value());
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
}

TEST_F(StructuralModuleTest, PathsStartAtTheGlobal) {
  Module a = MakeModule("nn.relu", T({1, 3}));
  Module b = MakeModule("exp", T({1, 3}));
  auto diff = StructuralDiffModules(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_EQ(diff->lhs_path, "@helper.body.callee");
  Module c = MakeModule("nn.relu", T({2, 3}));
  diff = StructuralDiffModules(a, c);
  ASSERT_TRUE(diff.has_value());
  EXPECT_EQ(diff->lhs_path, "@main.params[0].type");
  EXPECT_FALSE(StructuralDiffModules(a, c, EqualOptions{.ignore_types = true}).has_value());
}

TEST_F(StructuralModuleTest, MissingGlobalIsReportedFirst) {
  Module a = MakeModule("nn.relu", T({1, 3}));
  Module b = MakeModule("exp", T({1, 3}));
  b.Remove("helper");
  auto diff = StructuralDiffModules(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_EQ(diff->lhs_path, "@helper");
  EXPECT_EQ(diff->message, "@helper is defined only on the left");
  diff = StructuralDiffModules(b, a);
  ASSERT_TRUE(diff.has_value());
  EXPECT_EQ(diff->message, "@helper is defined only on the right");
}

// A chain of `n` relus over %x, ending in `last`.
const Expr* Chain(IRBuilder& b, const Var* x, int n, std::string_view last) {
  const Expr* e = x;
  for (int i = 0; i + 1 < n; ++i) e = b.MakeCall(GetOp("nn.relu"), {e});
  return b.MakeCall(GetOp(last), {e});
}

TEST_F(StructuralEqualTest, MillionNodeChainsCompareAndHashIteratively) {
  constexpr int kLength = 1000000;
  const Var* x = V("x");
  const Var* y = V("y");
  const Expr* a = Chain(b_, x, kLength, "nn.relu");
  const Expr* b = Chain(b_, y, kLength, "nn.relu");
  ExpectEqual(a, b);
  // The difference sits at the root of b's chain: the path is elided.
  const Expr* c = Chain(b_, y, kLength, "exp");
  StructuralDiff diff = ExpectDiff(a, c);
  EXPECT_EQ(diff.lhs_path, "<root>.callee");
  const Expr* d = b_.MakeCall(GetOp("exp"), {b_.MakeCall(GetOp("nn.relu"), {b_.MakeVar("z")})});
  for (int i = 0; i < kLength; ++i) d = b_.MakeCall(GetOp("nn.relu"), {d});
  const Expr* e = b_.MakeCall(GetOp("nn.relu"), {b_.MakeCall(GetOp("nn.relu"), {b_.MakeVar("z")})});
  for (int i = 0; i < kLength; ++i) e = b_.MakeCall(GetOp("nn.relu"), {e});
  diff = ExpectDiff(d, e);
  EXPECT_THAT(diff.lhs_path, HasSubstr("steps...>"));
  EXPECT_THAT(diff.lhs_path, ::testing::EndsWith(".args[0].callee"));
  EXPECT_LT(diff.lhs_path.size(), 1000u);
}

TEST_F(StructuralEqualTest, MillionLongLetChain) {
  constexpr int kLength = 1000000;
  auto make = [&](std::string_view prefix) {
    std::vector<const Var*> vars;
    const Var* x = V(prefix);
    const Expr* body = nullptr;
    vars.push_back(x);
    for (int i = 0; i < kLength; ++i) vars.push_back(V(prefix));
    body = vars.back();
    for (int i = kLength; i >= 1; --i) {
      body = b_.MakeLet(vars[i], Op("nn.relu", {vars[i - 1]}), body);
    }
    return Fn({x}, body);
  };
  ExpectEqual(make("a"), make("b"));
}

TEST_F(StructuralEqualTest, HashIgnoresNamesButNotStructure) {
  const Var* x = V("x");
  const Var* y = V("y");
  EXPECT_EQ(StructuralHash(Fn({x}, Op("nn.relu", {x}))),
            StructuralHash(Fn({y}, Op("nn.relu", {y}))));
  EXPECT_NE(StructuralHash(Fn({x, y}, Op("subtract", {x, y}))),
            StructuralHash(Fn({x, y}, Op("subtract", {y, x}))));
  EXPECT_NE(StructuralHash(Op("nn.relu", {x})), StructuralHash(Op("exp", {x})));
}

TEST_F(StructuralEqualTest, VirtualDevicesCompareAsInTvm) {
  // TVM's VarNode::SEqualReduce compares virtual_device_; FunctionNode's
  // leaves the function's own out. Devices compare by value, and nullptr is
  // the fully unconstrained device.
  const VirtualDevice* cpu = NewVirtualDevice(1, 0);
  const VirtualDevice* cpu_again = NewVirtualDevice(1, 0);
  const VirtualDevice* gpu = NewVirtualDevice(2, 0);
  auto param = [&](const VirtualDevice* d) {
    return b_.MakeVarWithStableName("x", T({1, 3}), {}, d);
  };
  auto fn = [&](const Var* x, const VirtualDevice* d) {
    return b_.MakeFunction(std::vector<const Var*>{x}, Op("nn.relu", {x}), nullptr, nullptr, {},
                           {}, d);
  };
  ExpectEqual(fn(param(cpu), cpu), fn(param(cpu_again), gpu));
  ExpectEqual(fn(param(nullptr), nullptr),
              fn(param(NewVirtualDevice(VirtualDevice::kInvalidDeviceType)), nullptr));
  StructuralDiff diff = ExpectDiff(fn(param(cpu), cpu), fn(param(gpu), cpu));
  EXPECT_THAT(diff.message, HasSubstr("virtual devices of %x and %x differ"));
  EXPECT_THAT(diff.message, HasSubstr("VirtualDevice(device_type=1, virtual_device_id=0)"));
  // As attribute values (on_device): by value too.
  const Var* x = V("x");
  auto on_device = [&](const VirtualDevice* d) {
    return Op("on_device", {x},
              WithField(DefaultAttrs(GetOp("on_device")->info()->attrs), "virtual_device",
                        AttrValue::Device(d)));
  };
  ExpectEqual(on_device(cpu), on_device(cpu_again));
  ExpectDiff(on_device(cpu), on_device(gpu));
}

TEST_F(StructuralEqualTest, RebuildKeepsVirtualDevices) {
  const VirtualDevice* cpu = NewVirtualDevice(1, 0);
  const Var* x = b_.MakeVarWithStableName("x", T({1, 3}), {}, cpu);
  const Function* f = b_.MakeFunction(std::vector<const Var*>{x}, Op("nn.relu", {x}), nullptr,
                                      nullptr, {}, {}, cpu);
  EXPECT_EQ(b_.MakeFunctionWithParamsOf(f, Op("exp", {x}), nullptr, nullptr)->virtual_device(),
            cpu);
  EXPECT_EQ(b_.MakeVarLike(x, T({2, 3}))->virtual_device(), cpu);
}

}  // namespace
}  // namespace carve
