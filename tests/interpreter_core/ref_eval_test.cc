// References in the interpreter: a `ref` value is one mutable cell shared by
// every copy. Ported from TVM v0.16's tests/python/relay/test_interpreter.py
// (test_ref), plus aliasing through closures and evaluation order.
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "passes/infer/infer_type.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<Value> Eval(const std::string& text, std::vector<Value> args = {}) {
  auto mod = ParseModule("ref.relay", "#[version = \"0.0.5\"]\n" + text);
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  Interpreter interp(*mod);
  return interp.Run("main", args);
}

// test_interpreter.py test_ref: read 1, write 2, read again, add: 3.
TEST(RefEval, ThreeWithRef) {
  auto out = Eval(R"(def @main() {
  let %i = ref(1);
  let %iv = ref_read(%i);
  let %u = ref_write(%i, 2);
  let %uv = ref_read(%i);
  add(%iv, %uv)
}
)");
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(out->tensor()), ElementsAre(3));
}

TEST(RefEval, WriteReturnsUnitAndReadsSeeItInOrder) {
  auto out = Eval(R"(def @main(%x: float32) {
  %0 = ref(%x);
  %1 = ref_read(%0);
  %2 = ref_write(%0, 5f);
  %3 = ref_read(%0);
  (%1, %2, %3)
}
)",
                  {Tensor<float>({}, {1})});
  CARVE_ASSERT_OK(out);
  ASSERT_TRUE(out->is_tuple());
  ASSERT_EQ(out->fields().size(), 3u);
  EXPECT_THAT(Values<float>(out->fields()[0].tensor()), ElementsAre(1));
  EXPECT_TRUE(out->fields()[1].is_tuple());
  EXPECT_TRUE(out->fields()[1].fields().empty());
  EXPECT_THAT(Values<float>(out->fields()[2].tensor()), ElementsAre(5));
}

// A closure captures the cell, not its contents: a counter.
TEST(RefEval, ClosuresShareTheCell) {
  auto out = Eval(R"(def @main() {
  let %c = ref(0);
  let %inc = fn () { ref_write(%c, add(ref_read(%c), 1)) };
  let %a = %inc();
  let %b = %inc();
  let %d = %inc();
  ref_read(%c)
}
)");
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(out->tensor()), ElementsAre(3));
}

TEST(RefEval, AReferenceResultDescribesItsContents) {
  auto out = Eval("def @main(%x: float32) { ref((%x, %x)) }", {Tensor<float>({}, {2})});
  CARVE_ASSERT_OK(out);
  ASSERT_TRUE(out->is_ref());
  EXPECT_EQ(DescribeValue(*out), "ref((float32, float32))");
  EXPECT_EQ(TypeToString(RuntimeType(*out)), "ref((float32, float32))");
}

TEST(RefEval, ArgumentsAreCheckedAgainstReferenceTypes) {
  auto mod = ParseModule("ref.relay",
                         "#[version = \"0.0.5\"]\ndef @main(%r: ref(float32)) { ref_read(%r) }\n");
  CARVE_ASSERT_OK(mod);
  CARVE_ASSERT_OK(InferType(*mod));
  Interpreter interp(*mod);
  std::vector<Value> tensor_arg = {Tensor<float>({}, {1})};
  auto bad = interp.Run("main", tensor_arg);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("expected ref(float32), got float32"));
  std::vector<Value> ref_arg = {Value::NewRef(Tensor<float>({}, {7}))};
  auto good = interp.Run("main", ref_arg);
  CARVE_ASSERT_OK(good);
  EXPECT_THAT(Values<float>(good->tensor()), ElementsAre(7));
}

}  // namespace
}  // namespace carve::testing
