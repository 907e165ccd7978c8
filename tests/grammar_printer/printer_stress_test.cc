// Size and depth: million-node chains print, and deep nesting prints on a
// thread with a small stack (a recursive printer would overflow it); plus a
// throughput check on a large ResNet-like module.
#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>

#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using testing::F32;
using testing::TestBuilder;

constexpr PrintOptions kBare{false, true, false};

// Runs `work` on a thread whose stack is `stack_bytes`.
void RunWithStack(size_t stack_bytes, std::function<void()> work) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, &work), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

constexpr size_t kSmallStack = 256 * 1024;

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

size_t CountLines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(PrinterStress, MillionNestedCalls) {
  constexpr int kN = 1000000;
  Module mod;
  TestBuilder b(&mod);
  const Var* x = b.Param("x", F32());
  const Expr* one = b.Int(1);
  const Expr* e = x;
  for (int i = 0; i < kN; ++i) e = b.Op("add", {e, one});
  b.Def("main", {x}, e);
  std::string text;
  RunWithStack(kSmallStack, [&] { text = PrintModule(mod, kBare); });
  EXPECT_EQ(CountLines(text), size_t(kN) + 2);
  EXPECT_TRUE(text.starts_with("def @main(%x: float32) {\n  %0 = add(%x, 1);\n"));
  std::string tail = "  %999998 = add(%999997, 1);\n  add(%999998, 1)\n}\n";
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
}

TEST(PrinterStress, MillionLetChain) {
  constexpr int kN = 1000000;
  Module mod;
  TestBuilder b(&mod);
  std::vector<const Var*> vars;
  for (int i = 0; i < kN; ++i) vars.push_back(b.Untyped("a"));
  const Expr* body = vars.back();
  for (int i = kN - 1; i >= 1; --i) body = b.LetIn(vars[i], b.Op("negative", {vars[i - 1]}), body);
  body = b.LetIn(vars[0], b.Int(0), body);
  b.Def("main", {}, body);
  std::string text;
  RunWithStack(kSmallStack, [&] { text = PrintModule(mod, kBare); });
  EXPECT_EQ(CountLines(text), size_t(kN) + 3);
  EXPECT_TRUE(text.starts_with("def @main() {\n  let %a = 0;\n  let %a1 = negative(%a);\n"));
  std::string tail = "  let %a999999 = negative(%a999998);\n  %a999999\n}\n";
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
}

// fn () { fn () { ... 0 } } nested `depth` times, each body's tail the next.
TEST(PrinterStress, DeeplyNestedFunctionsAndIfs) {
  constexpr int kDepth = 3000;
  Module mod;
  TestBuilder b(&mod);
  const Var* c = b.Param("c", testing::Bool());
  const Expr* e = b.Int(0);
  for (int i = 0; i < kDepth; ++i) {
    e = (i % 2 == 0) ? static_cast<const Expr*>(b.Fn({}, e)) : b.IfElse(c, e, b.Int(1));
  }
  b.Def("main", {c}, e);
  std::string text;
  RunWithStack(kSmallStack, [&] { text = PrintModule(mod, kBare); });
  // The innermost `0` sits one level deeper than the deepest body.
  std::string innermost = "\n" + std::string(2 * (kDepth + 1), ' ') + "0\n";
  EXPECT_NE(text.find(innermost), std::string::npos);
  EXPECT_TRUE(text.starts_with("def @main(%c: bool) {\n  if (%c) {\n    fn () {\n"));
  std::string tail = "  } else {\n    1\n  }\n}\n";
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
}

// A ResNet-like module: conv2d -> bias_add -> relu blocks with residual adds,
// typed, printed with type comments; must print at >= 200 MB/s in an
// optimised build (checked loosely here: the machine is shared).
TEST(PrinterStress, Throughput) {
  constexpr int kBlocks = 25000;  // four calls each: 100k calls
  Module mod;
  TestBuilder b(&mod);
  const Type* t = F32({1, 64, 56, 56});
  const Type* wt = F32({64, 64, 3, 3});
  const Var* x = b.Param("data", t);
  const Var* w = b.Param("weight", wt);
  const Var* bias = b.Param("bias", F32({64}));
  const Attrs* conv =
      WithField(DefaultAttrs(FindOp("nn.conv2d")->attrs), "padding", AttrValue::Ints({1, 1, 1, 1}));
  conv = WithField(conv, "channels", AttrValue::Int(64));
  conv = WithField(conv, "kernel_size", AttrValue::Ints({3, 3}));
  const Expr* e = x;
  for (int i = 0; i < kBlocks; ++i) {
    const Expr* y = b.Op("nn.conv2d", {e, w}, t, conv);
    y = b.Op("nn.relu", {b.Op("nn.bias_add", {y, bias}, t)}, t);
    e = b.Op("add", {y, e}, t);
  }
  b.Def("main", {x, w, bias}, e, t);
  PrintOptions options;
  options.show_types = true;
  PrintModule(mod, options);  // warm up
  // CPU time, not wall time: other processes share the machine.
  double start = CpuSeconds();
  std::string text = PrintModule(mod, options);
  double seconds = CpuSeconds() - start;
  double mb_per_s = double(text.size()) / 1e6 / seconds;
  std::printf("printed %.1f MB in %.1f ms: %.0f MB/s\n", text.size() / 1e6, seconds * 1e3,
              mb_per_s);
  EXPECT_EQ(CountLines(text), size_t(4 * kBlocks) + 3);
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  EXPECT_GT(mb_per_s, 50);
#endif
}

}  // namespace
}  // namespace carve
