// Pattern engine throughput on generated ResNet-like graphs (conv2d,
// bias_add, relu, residual add): a 10-composite DNNL-like table partitioned
// in order (MergeComposite's core), one pattern matched at every node, and a
// rewrite to a fixpoint. Reports ops/s (operator calls in the input).
//
//   build/bench/patterns_bench --benchmark_counters_tabular=true
//
// The 1M/100k ratio of BM_PartitionDnnlTable (issue 3):
//   build/bench/patterns_bench --benchmark_filter=PartitionDnnl --benchmark_repetitions=5
// and compare the two `_min` rows (--benchmark_report_aggregates_only=true
// prints only the aggregates).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>

#include "bench/relay_gen.h"
#include "grammar/parser.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "patterns/builders.h"
#include "patterns/graph.h"
#include "patterns/partition.h"
#include "patterns/query.h"
#include "patterns/rewrite.h"
#include "support/malloc_policy.h"

namespace carve::bench {
namespace {

struct Graph {
  Module mod;
  const Function* main = nullptr;
  int64_t ops = 0;
};

const Graph& GetGraph(int64_t ops) {
  static auto* cache = new std::map<int64_t, Graph>();
  auto it = cache->find(ops);
  if (it != cache->end()) return it->second;
  auto mod = ParseModule("resnet.relay", GenerateRelay(GraphKind::kResNet, ops));
  if (!mod.ok() || !InferType(*mod).ok()) std::abort();
  Graph g;
  g.mod = std::move(*mod);
  g.main = g.mod.Lookup("main");
  PostOrderVisit(g.main, [&g](const Expr* e) { g.ops += Isa<Call>(e) ? 1 : 0; });
  return cache->emplace(ops, std::move(g)).first->second;
}

// DNNL's table shape (tvm-reference.md 4.3), with bias_add for the biases
// the generator writes.
std::vector<CompositeEntry> DnnlLikeTable() {
  auto conv = [] { return IsOp("nn.conv2d")(Wildcard(), Wildcard()); };
  auto bias = [&] { return IsOp("nn.bias_add")(conv(), Wildcard()); };
  auto dense = [] { return IsOp("nn.dense")(Wildcard(), Wildcard()); };
  auto unary = [](std::string_view op, Pattern p) { return IsOp(op)(p); };
  return {
      {"dnnl.conv2d_bias_sum_relu", unary("nn.relu", IsOp("add")(bias(), Wildcard())), {}},
      {"dnnl.conv2d_bias_sum", IsOp("add")(bias(), Wildcard()), {}},
      {"dnnl.conv2d_bias_relu", unary("nn.relu", bias()), {}},
      {"dnnl.conv2d_bias_tanh", unary("tanh", bias()), {}},
      {"dnnl.conv2d_bias_sigmoid", unary("sigmoid", bias()), {}},
      {"dnnl.conv2d_bias", bias(), {}},
      {"dnnl.conv2d_relu", unary("nn.relu", conv()), {}},
      {"dnnl.dense_bias_relu", unary("nn.relu", IsOp("add")(dense(), Wildcard())), {}},
      {"dnnl.dense_bias", IsOp("add")(dense(), Wildcard()), {}},
      {"dnnl.conv2d", conv(), {}},
  };
}

void SetOps(benchmark::State& state, int64_t ops) {
  state.counters["ops"] = double(ops);
  state.counters["ops/s"] =
      benchmark::Counter(double(ops) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// The fastest repetition: the figure to compare across sizes (means and
// medians carry the machine's load).
double MinOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Every iteration partitions into a fresh arena, the previous one freed
// before the timer restarts. With the CLI's malloc policy (main below) the
// freed blocks stay on the heap, so every timed iteration at either size
// works in memory that is already mapped: the figure is CPU work, not page
// faults. (Under glibc's default policy, blocks above the dynamic mmap
// threshold come and go as fresh mappings and trimming returns the heap top,
// so whether an iteration faulted its memory in again depended on what the
// previous one freed: the 100k time swung with it and the 1M/100k ratio read
// anywhere from 10x to 13x.)
void BM_PartitionDnnlTable(benchmark::State& state) {
  const Graph& g = GetGraph(state.range(0));
  std::vector<CompositeEntry> table = DnnlLikeTable();
  std::unique_ptr<Arena> arena;
  for (auto _ : state) {
    state.PauseTiming();  // the previous run's arena teardown is not partitioning
    arena.reset();
    arena = std::make_unique<Arena>();
    state.ResumeTiming();
    auto out = PartitionComposites(table, g.main, arena.get());
    if (!out.ok() || *out == g.main) state.SkipWithError("partition failed");
    benchmark::DoNotOptimize(*out);
  }
  SetOps(state, g.ops);
}
BENCHMARK(BM_PartitionDnnlTable)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->ComputeStatistics("min", MinOf);

void BM_IndexedGraph(benchmark::State& state) {
  const Graph& g = GetGraph(state.range(0));
  for (auto _ : state) {
    IndexedGraph graph(g.main);
    benchmark::DoNotOptimize(graph.PostDominator(0));
  }
  SetOps(state, g.ops);
}
BENCHMARK(BM_IndexedGraph)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_FindMatches(benchmark::State& state) {
  const Graph& g = GetGraph(state.range(0));
  auto pattern = CompilePattern(
      IsOp("nn.relu")(IsOp("nn.bias_add")(IsOp("nn.conv2d")(Wildcard(), Wildcard()), Wildcard())));
  for (auto _ : state) {
    std::vector<FoundMatch> found = FindMatches(*pattern, g.main);
    benchmark::DoNotOptimize(found.data());
  }
  SetOps(state, g.ops);
}
BENCHMARK(BM_FindMatches)->Arg(100000)->Unit(benchmark::kMillisecond);

// bias_add(x, b) => add(x, b) everywhere (two per block), then a second round
// that finds nothing: a full fixpoint run.
void BM_RewriteToFixpoint(benchmark::State& state) {
  const Graph& g = GetGraph(state.range(0));
  Pattern x = Wildcard(), b = Wildcard();
  RewriteRule rule;
  rule.name = "bias_add_to_add";
  rule.pattern = IsOp("nn.bias_add")(x, b);
  rule.rewrite = [&](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
    return ctx.builder().MakeCall(GetOp("add"), {ctx.Get(x), ctx.Get(b)});
  };
  std::unique_ptr<Arena> arena;
  for (auto _ : state) {
    state.PauseTiming();
    arena = std::make_unique<Arena>();
    state.ResumeTiming();
    auto out = RewriteExpr({rule}, g.main, arena.get());
    if (!out.ok()) state.SkipWithError("rewrite failed");
    benchmark::DoNotOptimize(out->expr);
  }
  SetOps(state, g.ops);
}
BENCHMARK(BM_RewriteToFixpoint)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace carve::bench

// The CLI's malloc policy (support/malloc_policy.h), so that the benchmarks
// see the memory behaviour `carve opt` has and steady memory conditions from
// one iteration to the next.
int main(int argc, char** argv) {
  carve::KeepFreedMemoryForReuse();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
