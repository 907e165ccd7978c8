// Algebraic data types in the interpreter: constructor values and `match`
// with first-match semantics. Ported from TVM v0.16's
// tests/python/relay/test_adt.py (the prelude's list, option and tree
// functions run on the interpreter: length, nth, map, foldl, sum, rev, tree
// size) and test_interpreter.py (a match that matches no clause fails).
// The prelude functions are written here in carve's own words.
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "passes/infer/infer_type.h"
#include "tests/common/adt_prelude.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The prelude's functions over List and Tree.
constexpr char kFunctions[] = R"(
type Tree[A] {
  Rose(A, List[Tree[A]]),
}

def @length[A](%xs: List[A]) -> int32 {
  match (%xs) {
    Cons(_, %rest) => add(1, @length(%rest)),
    Nil => 0,
  }
}

def @nth[A](%xs: List[A], %n: int32) -> A {
  if (equal(%n, 0)) {
    match? (%xs) { Cons(%x, _) => %x }
  } else {
    match? (%xs) { Cons(_, %rest) => @nth(%rest, subtract(%n, 1)) }
  }
}

def @map[A, B](%f: fn (A) -> B, %xs: List[A]) -> List[B] {
  match (%xs) {
    Cons(%x, %rest) => Cons(%f(%x), @map(%f, %rest)),
    Nil => Nil,
  }
}

def @foldl[A, B](%f: fn (A, B) -> A, %acc: A, %xs: List[B]) -> A {
  match (%xs) {
    Cons(%x, %rest) => @foldl(%f, %f(%acc, %x), %rest),
    Nil => %acc,
  }
}

def @rev[A](%xs: List[A]) -> List[A] {
  @foldl(fn (%acc: List[A], %x: A) { Cons(%x, %acc) }, Nil, %xs)
}

def @size[A](%t: Tree[A]) -> int32 {
  match (%t) {
    Rose(_, %children) =>
      add(1, @foldl(fn (%n: int32, %c: Tree[A]) { add(%n, @size(%c)) }, 0, %children)),
  }
}
)";

absl::StatusOr<Value> Eval(const std::string& main, std::vector<Value> args = {}) {
  auto mod = ParseModule("adt.relay", std::string(kListOptionPrelude) + kFunctions + main);
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  // Values refer to the module's constructors: the module outlives them.
  static std::vector<Module>* modules = new std::vector<Module>();
  modules->push_back(*std::move(mod));
  Interpreter interp(modules->back());
  return interp.Run("main", args);
}

int32_t Int(const Value& v) { return Values<int32_t>(v.tensor())[0]; }

// The elements of a List value, in order.
std::vector<int32_t> Elements(const Value& list) {
  std::vector<int32_t> out;
  const Value* cur = &list;
  while (cur->is_adt() && cur->constructor()->name() == "Cons") {
    out.push_back(Int(cur->adt_fields()[0]));
    cur = &cur->adt_fields()[1];
  }
  return out;
}

TEST(AdtEval, ConstructorsBuildValues) {
  auto out = Eval("def @main() { Cons(1, Cons(2, Nil)) }");
  CARVE_ASSERT_OK(out);
  ASSERT_TRUE(out->is_adt());
  EXPECT_EQ(out->constructor()->name(), "Cons");
  EXPECT_EQ(out->constructor()->tag(), 0);
  EXPECT_THAT(Elements(*out), ElementsAre(1, 2));
  EXPECT_EQ(DescribeValue(*out), "Cons(int32, Cons(int32, Nil))");
}

// test_adt.py test_length / test_nth.
TEST(AdtEval, LengthAndNth) {
  auto out = Eval(R"(def @main() {
  let %l = Cons(10, Cons(20, Cons(30, Nil)));
  let %empty: List[int32] = Nil;
  (@length(%l), @nth(%l, 2), @length(%empty))
})");
  CARVE_ASSERT_OK(out);
  ASSERT_TRUE(out->is_tuple());
  EXPECT_EQ(Int(out->fields()[0]), 3);
  EXPECT_EQ(Int(out->fields()[1]), 30);
  EXPECT_EQ(Int(out->fields()[2]), 0);
}

// test_adt.py test_map / test_foldl / test_rev, with closures over the
// arguments.
TEST(AdtEval, MapFoldlAndRev) {
  auto out = Eval(R"(def @main(%k: int32) {
  let %l = Cons(1, Cons(2, Cons(3, Nil)));
  (@map(fn (%x: int32) { multiply(%x, %k) }, %l),
   @foldl(fn (%a: int32, %x: int32) { add(%a, %x) }, 0, %l),
   @rev(%l))
})",
                  {Tensor<int32_t>({}, {10})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Elements(out->fields()[0]), ElementsAre(10, 20, 30));
  EXPECT_EQ(Int(out->fields()[1]), 6);
  EXPECT_THAT(Elements(out->fields()[2]), ElementsAre(3, 2, 1));
}

// test_adt.py test_size: a rose tree of four nodes.
TEST(AdtEval, TreeSize) {
  auto out = Eval(R"(def @main() {
  let %leaf = Rose(2, Nil);
  @size(Rose(1, Cons(%leaf, Cons(Rose(3, Cons(Rose(4, Nil), Nil)), Nil))))
})");
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(Int(*out), 4);
}

// The first matching clause wins, though later ones match too; nested and
// tuple patterns bind their variables.
TEST(AdtEval, FirstMatchingClauseWins) {
  auto some = Eval(R"(def @main(%x: int32) {
  let %o = Some(%x);
  let %n: Option[int32] = None;
  (match ((%o, Cons(%o, Nil))) {
     (Some(%a), Cons(Some(%b), Nil)) => add(%a, %b),
     (_, _) => 100,
     (None, _) => 200,
   },
   match ((%n, 1)) {
     (Some(_), _) => 1,
     (_, %v) => add(%v, 100),
     (None, _) => 3,
   })
})",
                   {Tensor<int32_t>({}, {21})});
  CARVE_ASSERT_OK(some);
  EXPECT_EQ(Int(some->fields()[0]), 42);
  EXPECT_EQ(Int(some->fields()[1]), 101);
}

// TVM's interpreter fails when no clause matches (only `match?` passes the
// type checker with missing cases).
TEST(AdtEval, NoMatchingClauseIsAnError) {
  auto out = Eval("def @main() { @nth(Cons(1, Nil), 3) }");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("match?: no clause matches the value Nil"));
}

// A long list: built, folded and destroyed without deep recursion.
TEST(AdtEval, LongListsRunInConstantStack) {
  auto out = Eval(R"(
def @build(%n: int32, %acc: List[int32]) -> List[int32] {
  if (equal(%n, 0)) { %acc } else { @build(subtract(%n, 1), Cons(%n, %acc)) }
}
def @main() {
  @foldl(fn (%a: int32, %x: int32) { add(%a, %x) }, 0, @build(100000, Nil))
})");
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(Int(*out), 705082704);  // 100000 * 100001 / 2 mod 2^32
}

}  // namespace
}  // namespace carve::testing
