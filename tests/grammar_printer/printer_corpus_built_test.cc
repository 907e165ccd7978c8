// Corpus programs rebuilt by hand, node by node with the types TVM inferred,
// and printed with types: the text must be TVM's file (with compiler
// annotations inline, carve's form). These pin the graph-normal-form rules —
// which nodes are bound, the order of the `%N` numbers across functions,
// bodies and callees — on real TVM output, independently of the parser.
#include <cmath>
#include <vector>

#include "grammar/metadata.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using testing::Bool;
using testing::CarveForm;
using testing::CompilerAttrs;
using testing::F32;
using testing::FnAttrs;
using testing::FnOf;
using testing::I32;
using testing::ReadCorpus;
using testing::TestBuilder;
using testing::TupleOf;

PrintOptions Typed() {
  PrintOptions options;
  options.show_types = true;
  return options;
}

const Attrs* WithInts(std::string_view op, std::string_view field,
                      std::initializer_list<int64_t> values) {
  return WithField(DefaultAttrs(FindOp(op)->attrs), field, AttrValue::Ints(values));
}

TEST(PrinterCorpusBuilt, GlobalsRecursion) {
  Module mod;
  TestBuilder b(&mod);
  const Type* vec = F32({4});
  const Var* m = b.Param("m", I32());
  const Var* zz = b.Param("zz", vec);
  const Expr* sum = b.CallGlobal("sum_to", {m, b.Int(0)}, I32());
  const Expr* square2 = b.CallGlobal("square", {b.CallGlobal("square", {zz}, vec)}, vec);
  b.Def("main", {m, zz}, b.Tup({sum, square2}, TupleOf({I32(), vec})), TupleOf({I32(), vec}));

  const Var* z = b.Param("z", vec);
  b.Def("square", {z}, b.Op("multiply", {z, z}, vec), vec);

  const Var* i = b.Param("i", I32());
  const Var* acc = b.Param("acc", I32());
  const Expr* recurse = b.CallGlobal(
      "sum_to", {b.Op("subtract", {i, b.Int(1)}, I32()), b.Op("add", {acc, i}, I32())}, I32());
  b.Def("sum_to", {i, acc}, b.IfElse(b.Op("equal", {i, b.Int(0)}, Bool()), acc, recurse), I32());

  EXPECT_EQ(PrintModule(mod, Typed()), ReadCorpus("globals_recursion.relay"));
}

// The demo's shapes: data, weight, bias and the loop's output.
struct DemoTypes {
  const Type* data = F32({1, 32, 56, 56});
  const Type* weight = F32({32, 32, 3, 3});
  const Type* bias = F32({32});
  const Type* out = F32({1, 56, 56, 32});
  const Type* loop = FnOf({I32(), data, weight, bias}, out);
};

// fn (%FunctionVar_k_0, _1, _2) { relu(bias_add(conv2d(...))) }, the composite
// MergeComposite makes.
const Function* CompositeConvBiasRelu(TestBuilder& b, const DemoTypes& t, int k,
                                      std::string_view target) {
  auto name = [k](int j) { return "FunctionVar_" + std::to_string(k) + "_" + std::to_string(j); };
  const Var* x = b.Param(name(0), t.data);
  const Var* w = b.Param(name(1), t.weight);
  const Var* bias = b.Param(name(2), t.bias);
  const Expr* conv =
      b.Op("nn.conv2d", {x, w}, t.data, WithInts("nn.conv2d", "padding", {1, 1, 1, 1}));
  const Expr* body = b.Op("nn.relu", {b.Op("nn.bias_add", {conv, bias}, t.data)}, t.data);
  const Attrs* attrs =
      FnAttrs({{"PartitionedFromPattern", AttrValue::Str("nn.conv2d_nn.bias_add_nn.relu_")},
               {"Composite", AttrValue::Str(std::string(target) + ".conv2d_relu_with_bias")}});
  return b.Fn({x, w, bias}, body, t.data, attrs);
}

TEST(PrinterCorpusBuilt, Demo2AnnotateTarget) {
  std::string tvm = ReadCorpus("demo_2_annotate_target.relay");
  ASSERT_FALSE(tvm.empty());
  // The compiler of meta[relay.attrs.CompilerAttrs][k], from TVM's metadata.
  std::vector<std::string> compiler;
  std::string json = tvm.substr(tvm.find("#[metadata]"));
  for (size_t pos = 0; (pos = json.find("\"compiler\": \"", pos)) != std::string::npos;) {
    pos += 13;
    compiler.push_back(json.substr(pos, json.find('"', pos) - pos));
  }
  ASSERT_EQ(compiler.size(), 26u);
  testing::CorpusText expected = CarveForm(tvm);

  Module mod;
  TestBuilder b(&mod);
  DemoTypes t;
  auto begin = [&](const Expr* x, int k) {
    return b.Op("annotation.compiler_begin", {x}, x->checked_type(), CompilerAttrs(compiler[k]));
  };
  auto end = [&](const Expr* x, int k) {
    return b.Op("annotation.compiler_end", {x}, x->checked_type(), CompilerAttrs(compiler[k]));
  };
  const Var* data = b.Param("data", t.data);
  const Var* weight = b.Param("weight", t.weight);
  const Var* bias = b.Param("bias", t.bias);
  const Var* loop = b.Param("while_loop", t.loop);
  const Var* iter = b.Param("iter1", I32());
  const Var* d = b.Param("d1", t.data);
  const Var* w = b.Param("w1", t.weight);
  const Var* bb = b.Param("b1", t.bias);

  const Expr* cond = end(b.Op("less", {begin(iter, 0), begin(b.Int(2), 1)}, Bool()), 2);
  const Expr* next = end(b.Op("add", {begin(iter, 3), begin(b.Int(1), 4)}, I32()), 5);
  const Expr* conv1 = end(b.Apply(CompositeConvBiasRelu(b, t, 1, "byoc_target"),
                                  {begin(d, 7), begin(w, 8), begin(bb, 9)}, t.data),
                          10);
  const Expr* then_branch = end(
      b.Apply(loop, {begin(next, 6), begin(conv1, 11), begin(w, 12), begin(bb, 13)}, t.out), 14);
  const Expr* conv0 = end(b.Apply(CompositeConvBiasRelu(b, t, 0, "byoc_target"),
                                  {begin(d, 15), begin(w, 16), begin(bb, 17)}, t.data),
                          18);
  const Expr* reshape =
      b.Op("reshape", {begin(conv0, 19)}, t.out, WithInts("reshape", "newshape", {1, 56, 56, 32}));
  const Expr* else_branch = end(reshape, 20);
  const Function* loop_fn = b.Fn({iter, d, w, bb}, b.IfElse(cond, then_branch, else_branch), t.out);
  const Expr* start =
      end(b.Apply(loop, {begin(b.Int(0), 21), begin(data, 22), begin(weight, 23), begin(bias, 24)},
                  t.out),
          25);
  b.Def("main", {data, weight, bias}, b.LetIn(loop, loop_fn, start), t.out);

  EXPECT_EQ(PrintModule(mod, Typed()), expected.program);
}

// A BYOC region function: params %byoc_target_<k>_i<j>, TVM's region attrs.
const Attrs* RegionAttrs(int k) {
  std::string name = "tvmgen_default_byoc_target_main_" + std::to_string(k);
  return FnAttrs({{"Compiler", AttrValue::Str("byoc_target")},
                  {"Primitive", AttrValue::Int(1)},
                  {"Inline", AttrValue::Int(1)},
                  {"global_symbol", AttrValue::Str(name)}});
}

TEST(PrinterCorpusBuilt, Demo4PartitionGraph) {
  Module mod;
  TestBuilder b(&mod);
  DemoTypes t;
  const Var* data = b.Param("data", t.data);
  const Var* weight = b.Param("weight", t.weight);
  const Var* bias = b.Param("bias", t.bias);
  const Var* loop = b.Param("while_loop", t.loop);
  const Var* iter = b.Param("iter1", I32());
  const Var* d = b.Param("d1", t.data);
  const Var* w = b.Param("w1", t.weight);
  const Var* bb = b.Param("b1", t.bias);
  const Expr* then_branch =
      b.Apply(loop,
              {b.CallGlobal("tvmgen_default_byoc_target_main_0", {iter}, I32()),
               b.CallGlobal("tvmgen_default_byoc_target_main_2", {d, w, bb}, t.data), w, bb},
              t.out);
  const Expr* else_branch = b.CallGlobal("tvmgen_default_byoc_target_main_5", {d, w, bb}, t.out);
  const Expr* cond = b.Op("less", {iter, b.Int(2)}, Bool());
  const Function* loop_fn = b.Fn({iter, d, w, bb}, b.IfElse(cond, then_branch, else_branch), t.out);
  b.Def("main", {data, weight, bias},
        b.LetIn(loop, loop_fn, b.Apply(loop, {b.Int(0), data, weight, bias}, t.out)), t.out);

  const Var* i0 = b.Param("byoc_target_0_i0", I32());
  b.Def("tvmgen_default_byoc_target_main_0", {i0}, b.Op("add", {i0, b.Int(1)}, I32()), I32(),
        RegionAttrs(0));

  const Var* a0 = b.Param("byoc_target_2_i0", t.data);
  const Var* a1 = b.Param("byoc_target_2_i1", t.weight);
  const Var* a2 = b.Param("byoc_target_2_i2", t.bias);
  b.Def("tvmgen_default_byoc_target_main_2", {a0, a1, a2},
        b.Apply(CompositeConvBiasRelu(b, t, 1, "byoc_target"), {a0, a1, a2}, t.data), t.data,
        RegionAttrs(2));

  const Var* c0 = b.Param("byoc_target_5_i0", t.data);
  const Var* c1 = b.Param("byoc_target_5_i1", t.weight);
  const Var* c2 = b.Param("byoc_target_5_i2", t.bias);
  const Expr* conv = b.Apply(CompositeConvBiasRelu(b, t, 0, "byoc_target"), {c0, c1, c2}, t.data);
  b.Def("tvmgen_default_byoc_target_main_5", {c0, c1, c2},
        b.Op("reshape", {conv}, t.out, WithInts("reshape", "newshape", {1, 56, 56, 32})), t.out,
        RegionAttrs(5));

  EXPECT_EQ(PrintModule(mod, Typed()), ReadCorpus("demo_4_partition_graph.relay"));
}

const Attrs* CastTo(std::string_view dtype) {
  return WithField(DefaultAttrs(FindOp("cast")->attrs), "dtype", AttrValue::Str(dtype));
}

TEST(PrinterCorpusBuilt, ScalarsLetIfFn) {
  Module mod;
  TestBuilder b(&mod);
  const Type* i16 = ScalarTy(DataType::Int(16));
  const Type* i64 = ScalarTy(DataType::Int(64));
  const Type* f16 = ScalarTy(DataType::Float(16));
  const Type* f64 = ScalarTy(DataType::Float(64));
  const Type* i8 = ScalarTy(DataType::Int(8));
  const Type* u8 = ScalarTy(DataType::UInt(8));
  const Type* unit = TupleOf({});
  const Type* big = TupleOf({F32(), I32(), I32(), F32(), F32(), Bool(), I32(), I32(), F32(), unit});

  const Var* x = b.Param("x", F32());
  const Var* n = b.Param("n", I32());
  struct Binding {
    const Var* var;
    const Expr* value;
  };
  std::vector<Binding> lets;
  auto let = [&](std::string_view name, const Type* ty, const Expr* value) {
    lets.push_back({b.Param(name, ty), value});
    return lets.back().var;
  };
  const Var* v_i32 = let("i32", I32(), b.Int(42));
  const Var* v_i16 = let("i16", i16, b.Scalar(DataType::Int(16), -7));
  const Var* v_i64 = let("i64", i64, b.Scalar(DataType::Int(64), 9000000000.0));
  const Var* v_f32 = let("f32", F32(), b.Scalar(DataType::Float(32), 2.5));
  const Var* v_f16 = let("f16", f16, b.Scalar(DataType::Float(16), 0.5));
  const Var* v_f64 = let("f64", f64, b.Scalar(DataType::Float(64), 0.001));
  const Var* v_t = let("t", Bool(), b.Scalar(DataType::Bool(), 1));
  const Var* v_fl = let("fl", Bool(), b.Scalar(DataType::Bool(), 0));
  const Var* v_i8 = let("i8", i8, b.Scalar(DataType::Int(8), -3));
  const Var* v_u8 = let("u8", u8, b.Scalar(DataType::UInt(8), 200));
  const Var* v_ninf = let("ninf", F32(), b.Scalar(DataType::Float(32), -INFINITY));
  const Var* p = b.Param("p", F32());
  const Var* v_sq =
      let("sq", FnOf({F32()}, F32()), b.Fn({p}, b.Op("multiply", {p, p}, F32()), F32()));

  const Expr* cond = b.Op("logical_and", {v_t, b.Op("less", {n, v_i32}, Bool())}, Bool());
  const Expr* branch = b.IfElse(cond, b.Apply(v_sq, {x}, F32()), b.Op("add", {x, v_f32}, F32()));
  const Expr* tuple = b.Tup({branch, b.Op("cast", {v_i16}, I32(), CastTo("int32")),
                             b.Op("cast", {v_i64}, I32(), CastTo("int32")),
                             b.Op("cast", {v_f16}, F32(), CastTo("float32")),
                             b.Op("cast", {v_f64}, F32(), CastTo("float32")), v_fl,
                             b.Op("cast", {v_i8}, I32(), CastTo("int32")),
                             b.Op("cast", {v_u8}, I32(), CastTo("int32")), v_ninf, b.Tup({}, unit)},
                            big);
  const Var* t1 = let("t1", big, tuple);
  const Type* ret = TupleOf({F32(), I32(), big});
  const Expr* body = b.Tup({b.Get(t1, 0, F32()), b.Get(t1, 1, I32()), t1}, ret);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = b.LetIn(it->var, it->value, body);
  b.Def("main", {x, n}, body, ret);

  std::string tvm = ReadCorpus("scalars_let_if_fn.relay");
  testing::CorpusText expected = CarveForm(tvm);
  testing::CorpusText actual = CarveForm(PrintModule(mod, Typed()));
  EXPECT_EQ(actual.program, expected.program);
  // The section holds the same tensors, in the same order.
  absl::StatusOr<Metadata> want = ParseMetadata(expected.metadata);
  absl::StatusOr<Metadata> got = ParseMetadata(actual.metadata);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->constants.size(), want->constants.size());
  for (size_t k = 0; k < got->constants.size(); ++k) {
    EXPECT_TRUE(got->constants[k].BitwiseEqual(want->constants[k])) << "constant " << k;
  }
}

}  // namespace
}  // namespace carve
