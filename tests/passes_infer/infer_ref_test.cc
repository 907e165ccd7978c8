// InferType on references, ported from TVM v0.16's
// tests/python/relay/test_type_infer.py (test_ref) plus the failures TVM
// reports as unification errors.
#include <string>

#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Module> Typed(const std::string& body) {
  absl::StatusOr<Module> mod = ParseModule("ref.relay", "#[version = \"0.0.5\"]\n" + body);
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  return mod;
}

std::string MainType(const Module& mod) {
  return TypeToString(mod.Lookup("main")->checked_type());
}

// test_type_infer.py test_ref: ref(x) : ref(float32), ref_read : float32,
// ref_write : ().
TEST(InferRef, CreateReadWriteHaveTvmsTypes) {
  auto create = Typed("def @main(%x: float32) { ref(%x) }");
  ASSERT_TRUE(create.ok()) << RenderStatus(create.status());
  EXPECT_EQ(MainType(*create), "fn (float32) -> ref(float32)");
  auto read = Typed("def @main(%x: float32) { ref_read(ref(%x)) }");
  ASSERT_TRUE(read.ok()) << RenderStatus(read.status());
  EXPECT_EQ(MainType(*read), "fn (float32) -> float32");
  auto write = Typed("def @main(%x: float32, %y: float32) { ref_write(ref(%x), %y) }");
  ASSERT_TRUE(write.ok()) << RenderStatus(write.status());
  EXPECT_EQ(MainType(*write), "fn (float32, float32) -> ()");
}

// The cell's type flows through a let into an unannotated parameter.
TEST(InferRef, ReadingAParameterInfersItsReferenceType) {
  auto mod = Typed(R"(def @main(%x: Tensor[(2), float32]) {
  let %f = fn (%r) { ref_read(%r) };
  %f(ref(%x))
}
)");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(MainType(*mod), "fn (Tensor[(2), float32]) -> Tensor[(2), float32]");
}

TEST(InferRef, ReferenceTypeAnnotationsParseAndPrintAsTvm) {
  auto mod = Typed(R"(def @main(%r: ref(int32), %v: int32) -> (int32, ()) {
  (ref_read(%r), ref_write(%r, %v))
}
)");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(MainType(*mod), "fn (ref(int32), int32) -> (int32, ())");
  PrintOptions options;
  options.show_types = true;
  EXPECT_THAT(PrintModule(*mod, options), HasSubstr("%r: ref(int32) /* ty=ref(int32) */"));
}

TEST(InferRef, WritingAValueOfAnotherTypeIsAnError) {
  auto mod = Typed("def @main(%x: float32, %y: int32) { ref_write(ref(%x), %y) }");
  ASSERT_FALSE(mod.ok());
  EXPECT_THAT(RenderStatus(mod.status()),
              HasSubstr("ref_write: the cell holds float32 but the value has type int32"));
}

TEST(InferRef, ReadingATensorIsAnError) {
  auto mod = Typed("def @main(%x: float32) { ref_read(%x) }");
  ASSERT_FALSE(mod.ok());
  EXPECT_THAT(RenderStatus(mod.status()),
              HasSubstr("ref_read: the operand must be a reference, got float32"));
}

TEST(InferRef, DistinctCellTypesDoNotUnify) {
  auto mod = Typed("def @main(%r: ref(float32), %s: ref(int32), %c: bool) { if (%c) { %r } else { %s } }");
  ASSERT_FALSE(mod.ok());
  EXPECT_THAT(RenderStatus(mod.status()),
              HasSubstr("branches have different types: ref(float32) and ref(int32)"));
}

}  // namespace
}  // namespace carve
