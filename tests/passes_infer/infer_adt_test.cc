// InferType on algebraic data types, ported from TVM v0.16's
// tests/python/relay/test_type_infer.py (constructors, match, polymorphic
// functions over the prelude's List) and test_adt.py's typing of the
// prelude's functions, plus the errors TVM reports (an incomplete match,
// a pattern of the wrong data type).
#include <string>

#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"
#include "tests/common/adt_prelude.h"

namespace carve {
namespace {

using testing::kListOptionPrelude;

using ::testing::HasSubstr;

absl::StatusOr<Module> Typed(const std::string& defs) {
  absl::StatusOr<Module> mod = ParseModule("adt.relay", kListOptionPrelude + defs);
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  return mod;
}

std::string TypeOfGlobal(const Module& mod, std::string_view name) {
  return TypeToString(mod.Lookup(name)->checked_type());
}

TEST(InferAdt, ConstructorCallsInstantiateTheDataType) {
  auto mod = Typed("def @main(%x: int32) { Cons(%x, Nil) }");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(TypeOfGlobal(*mod, "main"), "fn (int32) -> List[int32]");
}

// A constructor used as a value is polymorphic; returned from a function
// it is instantiated (TVM's InferType), so the return type fixes it.
TEST(InferAdt, AConstructorReturnedIsInstantiated) {
  auto mod = Typed("def @main() -> fn (int32, List[int32]) -> List[int32] { Cons }");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(TypeOfGlobal(*mod, "main"), "fn () -> fn (int32, List[int32]) -> List[int32]");
  auto open = Typed("def @main() { Cons }");
  ASSERT_FALSE(open.ok());
  EXPECT_THAT(RenderStatus(open.status()), HasSubstr("cannot infer the type"));
}

// TVM's type solver instantiates a polymorphic function passed where a
// monomorphic one is expected (the prelude's `@foldr(Cons, %ys, %xs)`).
TEST(InferAdt, PolymorphicArgumentsAreInstantiated) {
  auto mod = Typed(R"(
def @apply(%f: fn (int32, List[int32]) -> List[int32], %x: int32) -> List[int32] {
  %f(%x, Nil)
}
def @main(%x: int32) { @apply(Cons, %x) }
)");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(TypeOfGlobal(*mod, "main"), "fn (int32) -> List[int32]");
}

// test_type_infer.py test_global_var / polymorphic identity at two types.
TEST(InferAdt, PolymorphicFunctionsInstantiateAtEachCall) {
  auto mod = Typed(R"(
def @id[A](%x: A) -> A { %x }
def @main(%x: int32, %y: float32) { (@id(%x), @id(Some(%y))) }
)");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(TypeOfGlobal(*mod, "main"), "fn (int32, float32) -> (int32, Option[float32])");
  EXPECT_EQ(TypeOfGlobal(*mod, "id"), "fn [A](A) -> A");
}

// The prelude's length: a recursive polymorphic function with a match.
TEST(InferAdt, MatchBindsPatternVariablesAtTheFieldTypes) {
  auto mod = Typed(R"(
def @length[A](%xs: List[A]) -> int32 {
  match (%xs) {
    Cons(_, %rest) => add(1, @length(%rest)),
    Nil => 0,
  }
}
def @hd[A](%xs: List[A]) -> A {
  match? (%xs) {
    Cons(%x, _) => %x,
  }
}
def @main(%l: List[float32]) { (@length(%l), @hd(%l)) }
)");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(TypeOfGlobal(*mod, "main"), "fn (List[float32]) -> (int32, float32)");
}

TEST(InferAdt, UnannotatedParametersLearnTheirTypeFromPatterns) {
  auto mod = Typed(R"(
def @main(%o: Option[(int32, float32)]) {
  let %f = fn (%p) { match (%p) { Some((%a, _)) => %a, None => 0 } };
  %f(%o)
}
)");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(TypeOfGlobal(*mod, "main"), "fn (Option[(int32, float32)]) -> int32");
}

// TVM: "match expression does not handle the following cases".
TEST(InferAdt, AnIncompleteMatchIsAnError) {
  auto mod = Typed(R"(
def @main(%l: List[int32]) {
  match (%l) {
    Cons(%x, Nil) => %x,
    Nil => 0,
  }
}
)");
  ASSERT_FALSE(mod.ok());
  EXPECT_THAT(RenderStatus(mod.status()),
              HasSubstr("match expression does not handle the following cases: "
                        "Cons(_, Cons(_, _))"));
  // `match?` may fail at run time instead.
  auto partial = Typed(R"(
def @main(%l: List[int32]) {
  match? (%l) {
    Cons(%x, Nil) => %x,
  }
}
)");
  EXPECT_TRUE(partial.ok()) << RenderStatus(partial.status());
}

TEST(InferAdt, NestedAndTuplePatternsAreComplete) {
  auto mod = Typed(R"(
def @main(%p: (List[int32], Option[int32])) {
  match (%p) {
    (Cons(%x, _), Some(%y)) => add(%x, %y),
    (Nil, _) => 0,
    (_, None) => 1,
    (Cons(_, _), Some(_)) => 2,
  }
}
)");
  EXPECT_TRUE(mod.ok()) << RenderStatus(mod.status());
}

TEST(InferAdt, ErrorsNameTheTypes) {
  auto wrong_type = Typed(R"(
def @main(%o: Option[int32]) {
  match (%o) {
    Cons(%x, _) => %x,
    _ => 0,
  }
}
)");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_THAT(RenderStatus(wrong_type.status()),
              HasSubstr("match: pattern Cons expects a value of type List, got Option[int32]"));

  auto clauses = Typed(R"(
def @main(%o: Option[int32]) {
  match (%o) {
    Some(%x) => %x,
    None => 1f,
  }
}
)");
  ASSERT_FALSE(clauses.ok());
  EXPECT_THAT(RenderStatus(clauses.status()),
              HasSubstr("match: clauses have different types: int32 and float32"));

  auto field = Typed("def @main(%x: float32) -> List[int32] { Cons(%x, Nil) }");
  ASSERT_FALSE(field.ok());
  EXPECT_THAT(RenderStatus(field.status()), HasSubstr("function returns List[float32] but is declared to return List[int32]"));
}

}  // namespace
}  // namespace carve
