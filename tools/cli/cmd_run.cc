// `carve run FILE [--input NAME=F.npy]... [--params DIR] [--seed N] [--out DIR] [--threads N]
// [--stats] [--repeat N [--warmup K]]`:
// evaluates @main on the reference interpreter (offloaded functions on their
// backends' runtimes), optionally timing repeated calls.
#define EIGEN_USE_THREADS
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>

#include "backends/runtime/backend_runtime.h"
#include "backends/runtime/call_timing.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/status_macros.h"
#include "interpreter/evaluator.h"
#include "interpreter/npy.h"
#include "ir/tensor_limit.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/module_queries.h"
#include "tools/cli/run_inputs.h"
#include "tools/cli/number_text.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace carve::cli {
namespace {

// Process CPU time (all threads) and wall time, for --stats.
struct RunClock {
  double cpu = 0, wall = 0;
  static RunClock Now() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    RunClock c;
    c.cpu = double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
    c.wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return c;
  }
};

// The parts of a result that are neither tensors nor tuples (closures,
// global functions, references), by their place in the result ("result.1.0"):
// `run` prints and writes tensors only, and says what it left out rather
// than dropping it silently.
std::vector<std::string> NonTensorParts(const Value& result) {
  std::vector<std::string> parts;
  std::vector<std::pair<const Value*, std::string>> stack = {{&result, "result"}};
  while (!stack.empty()) {
    auto [v, where] = stack.back();
    stack.pop_back();
    if (v->is_tuple()) {
      auto fields = v->fields();
      for (size_t i = fields.size(); i-- > 0;) {
        stack.push_back({&fields[i], fmt::format("{}.{}", where, i)});
      }
    } else if (!v->is_tensor()) {
      parts.push_back(fmt::format("{} ({})", where, v->is_ref() ? "a reference" : "a function"));
    }
  }
  return parts;
}

// Tensors up to 32 MiB come from the heap and freed heap memory is kept for
// reuse: otherwise glibc maps every large kernel output fresh and unmaps it
// when freed, and a run spends a fifth of its time in page faults and
// zeroing new pages. Peak RSS is unaffected: memory is reused, not kept
// beyond the high-water mark.
void KeepFreedTensorMemory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

// Resident bytes now (the binary, libraries and the loaded module before
// any tensor exists: the part of the peak RSS that is not tensor data).
int64_t CurrentRssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * int64_t(sysconf(_SC_PAGESIZE));
}

int64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// Element `i` of an integer (or bool) tensor, exactly: GetAsDouble rounds
// above 2^53, and a uint64 at or above 2^63 does not fit int64.
int64_t SignedAt(const NDArray& t, int64_t i) {
  switch (t.dtype().bits) {
    case 8: return t.data<int8_t>()[i];
    case 16: return t.data<int16_t>()[i];
    case 32: return t.data<int32_t>()[i];
    default: return t.data<int64_t>()[i];
  }
}
uint64_t UnsignedAt(const NDArray& t, int64_t i) {
  switch (t.dtype().bits) {
    case 1:
    case 8: return t.data<uint8_t>()[i];
    case 16: return t.data<uint16_t>()[i];
    case 32: return t.data<uint32_t>()[i];
    default: return t.data<uint64_t>()[i];
  }
}

// min, max and the first six elements of an integer tensor, exactly, as
// integers of type T (int64_t or uint64_t, read by `at`); the sum in long
// double, whose 64-bit significand holds each element exactly on x86-64.
template <typename T>
long double IntegerTexts(const NDArray& t, T (*at)(const NDArray&, int64_t),
                         std::string& lo_text, std::string& hi_text, std::string& first) {
  int64_t n = t.num_elements();
  T lo = 0, hi = 0;
  long double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    T v = at(t, i);
    if (i == 0 || v < lo) lo = v;
    if (i == 0 || v > hi) hi = v;
    sum += static_cast<long double>(v);
  }
  lo_text = fmt::format("{}", lo);
  hi_text = fmt::format("{}", hi);
  for (int64_t i = 0; i < std::min<int64_t>(n, 6); ++i) {
    if (i) first += ", ";
    first += fmt::format("{}", at(t, i));
  }
  return sum;
}

// Integers and bools print exactly (unsigned ones as unsigned), floats with
// six significant digits; the mean is a double either way.
std::string Summarize(size_t index, const NDArray& t) {
  int64_t n = t.num_elements();
  long double sum = 0;
  std::string lo_text, hi_text, first;
  if (t.dtype().code == DataType::kUInt) {
    sum = IntegerTexts<uint64_t>(t, UnsignedAt, lo_text, hi_text, first);
  } else if (t.dtype().code == DataType::kInt) {
    sum = IntegerTexts<int64_t>(t, SignedAt, lo_text, hi_text, first);
  } else {
    double lo = 0, hi = 0, float_sum = 0;  // summed in double, as before
    for (int64_t i = 0; i < n; ++i) {
      double v = t.GetAsDouble(i);
      if (i == 0 || v < lo) lo = v;
      if (i == 0 || v > hi) hi = v;
      float_sum += v;
    }
    sum = float_sum;
    lo_text = fmt::format("{:.6g}", lo);
    hi_text = fmt::format("{:.6g}", hi);
    for (int64_t i = 0; i < std::min<int64_t>(n, 6); ++i) {
      if (i) first += ", ";
      first += fmt::format("{:.6g}", t.GetAsDouble(i));
    }
  }
  if (n > 6) first += ", ...";
  std::vector<Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(Dim{d, false});
  return fmt::format("out{}: {} min={} max={} mean={:.6g} first=[{}]\n", index,
                     TypeToString(TensorTy(t.dtype(), dims)), lo_text, hi_text,
                     n ? double(sum / n) : 0.0, first);
}

// The tensor limit --max-tensor-bytes asks for (0 = the default), or a
// usage error. (A malformed CARVE_MAX_TENSOR_BYTES is rejected by RunCarve.)
absl::StatusOr<int64_t> TensorLimitOption(const ParsedArgs& args) {
  std::optional<std::string> text = args.Get("--max-tensor-bytes");
  if (!text) return 0;
  absl::StatusOr<int64_t> v = ParseByteSize(*text);
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("--max-tensor-bytes: {}", std::string(v.status().message())));
  }
  return v;
}

struct RunNumbers {
  uint64_t seed = 0;
  long threads = 1;
  InputDist dist = InputDist::kUniform;
  RepeatOptions repeat;
};

// A count option in [lo, 1000000], or InvalidArgument.
absl::StatusOr<int> ParseCount(const ParsedArgs& args, const std::string& key, int lo) {
  const std::string text = args.GetOr(key, std::to_string(lo));
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || v < lo || v > 1000000) {
    return absl::InvalidArgumentError(fmt::format(
        "{} expects {} integer up to 1000000, got '{}'", key,
        lo == 0 ? "a non-negative" : "a positive", text));
  }
  return int(v);
}

// --seed, --threads, --input-dist and the form of --input, or
// InvalidArgument naming the bad one.
absl::StatusOr<RunNumbers> ParseRunNumbers(const ParsedArgs& args) {
  RunNumbers n;
  std::string seed_text = args.GetOr("--seed", "0");
  std::optional<uint64_t> seed = ParseUnsignedText(seed_text);
  if (!seed) {
    return absl::InvalidArgumentError(
        fmt::format("--seed expects an integer from 0 to 2^64-1, got '{}'", seed_text));
  }
  n.seed = *seed;
  char* end = nullptr;
  const std::string threads_text = args.GetOr("--threads", "1");
  n.threads = std::strtol(threads_text.c_str(), &end, 10);
  if (end == threads_text.c_str() || *end != '\0' || n.threads < 1 || n.threads > 1024) {
    return absl::InvalidArgumentError(
        fmt::format("--threads expects an integer from 1 to 1024, got '{}'", threads_text));
  }
  // The form of --input values is usage, checked before the file is read.
  CARVE_RETURN_IF_ERROR(ParseInputSpecs(args.GetAll("--input")).status());
  const std::optional<InputDist> dist = ParseInputDist(args.GetOr("--input-dist", "uniform"));
  if (!dist) {
    return absl::InvalidArgumentError(fmt::format(
        "--input-dist expects uniform, normal or ones, got '{}'", *args.Get("--input-dist")));
  }
  n.dist = *dist;
  CARVE_ASSIGN_OR_RETURN(n.repeat, ParseRepeatOptions(args));
  return n;
}

int RunRun(const ParsedArgs& args, Env& env) {
  if (absl::StatusOr<RunNumbers> n = ParseRunNumbers(args); !n.ok()) {
    return UsageError(env, "run", std::string(n.status().message()));
  }
  absl::StatusOr<int64_t> limit = TensorLimitOption(args);
  if (!limit.ok()) {
    return UsageError(env, "run", std::string(limit.status().message()));
  }
  std::optional<ScopedMaxTensorBytes> scoped_limit;
  if (*limit > 0) scoped_limit.emplace(*limit);
  // --- `carve run --compare` lives in cmd_compare.cc (the backends' owner). ---
  if (args.Has("--compare")) return RunCompare(args, env);
  if (args.positional().size() != 1) {
    return UsageError(env, "run", "expected exactly one FILE");
  }
  KeepFreedTensorMemory();
  const double load_start = NowMicros();
  absl::StatusOr<Module> mod = LoadTypedModule(env, args.positional()[0]);
  if (!mod.ok()) return ReportError(env, mod.status());
  if (args.Has("--repeat")) {
    *env.err << fmt::format("load_us: {:.1f}\n", NowMicros() - load_start);
  }
  absl::Status ran = RunModule(*mod, args, env);
  return ran.ok() ? kExitOk : ReportError(env, ran);
}

}  // namespace

absl::StatusOr<RepeatOptions> ParseRepeatOptions(const ParsedArgs& args) {
  RepeatOptions r;
  if (args.Has("--warmup") && !args.Has("--repeat")) {
    return absl::InvalidArgumentError("--warmup needs --repeat");
  }
  if (args.Has("--repeat")) {
    CARVE_ASSIGN_OR_RETURN(r.repeat, ParseCount(args, "--repeat", 1));
    CARVE_ASSIGN_OR_RETURN(r.warmup, ParseCount(args, "--warmup", 0));
  }
  return r;
}

namespace {

// The run's inputs: --input files, --params, generated values for the rest.
absl::StatusOr<std::vector<NDArray>> ReadRunInputs(const Function& main, const ParsedArgs& args,
                                                   const RunNumbers& numbers, Env& env) {
  RunInputOptions input_options;
  input_options.inputs = args.GetAll("--input");
  input_options.params_dir = args.GetOr("--params", "");
  input_options.read_file = env.read_file;
  input_options.seed = numbers.seed;
  input_options.dist = numbers.dist;
  return PrepareRunInputs(main, input_options);
}

// The threads of a run with --threads N: none of its own for one.
struct RunThreads {
  std::unique_ptr<Eigen::ThreadPool> pool;
  std::unique_ptr<Eigen::ThreadPoolDevice> device;
};

RunThreads MakeRunThreads(long threads) {
  RunThreads t;
  if (threads > 1) {
    // The calling thread runs one chunk of every split (nn_kernels::
    // ParallelFor), so the pool holds the other threads - 1: one worker more
    // was woken by every split only to find nothing left to do.
    t.pool = std::make_unique<Eigen::ThreadPool>(int(threads) - 1);
    t.device = std::make_unique<Eigen::ThreadPoolDevice>(t.pool.get(), int(threads));
  }
  return t;
}

// Each output summarised on stdout and, with --out DIR, written as
// DIR/out<i>.npy.
absl::Status WriteRunOutputs(const std::vector<NDArray>& outputs, const ParsedArgs& args,
                             Env& env) {
  std::string out_dir = args.GetOr("--out", "");
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
      return absl::PermissionDeniedError(
          fmt::format("cannot create '{}': {}", out_dir, ec.message()));
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    *env.out << Summarize(i, outputs[i]);
    if (!out_dir.empty()) {
      std::string path = (std::filesystem::path(out_dir) / fmt::format("out{}.npy", i)).string();
      // Through env.write_file, as -o is written: never half a file, and a
      // failed write names its reason (a full disk).
      CARVE_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(outputs[i]));
      CARVE_RETURN_IF_ERROR(env.write_file(path, bytes));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunModule(const Module& loaded, const ParsedArgs& args, Env& env) {
  const Module* mod = &loaded;
  const int64_t baseline_rss = CurrentRssBytes();
  const Function* main = mod->Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("module has no @main");
  CARVE_ASSIGN_OR_RETURN(RunNumbers numbers, ParseRunNumbers(args));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> inputs, ReadRunInputs(*main, args, numbers, env));
  SetBackendThreads(int(numbers.threads));
  RunThreads threads = MakeRunThreads(numbers.threads);
  InterpreterOptions options;
  options.device = threads.device.get();
  const double prepare_start = NowMicros();
  Interpreter interpreter(*mod, options);
  PrepareBackendRuntimes(*mod, options.device);  // oneDNN primitives before the first call
  std::vector<Value> values(std::make_move_iterator(inputs.begin()),
                            std::make_move_iterator(inputs.end()));
  inputs.clear();
  const double prepare_us = NowMicros() - prepare_start;
  const RunClock run_start = RunClock::Now();
  RunClock run_end = run_start;
  absl::StatusOr<Value> result;
  CallTiming timing;
  if (numbers.repeat.repeat > 0) {
    // Every call gets the same inputs, so the interpreter must not consume
    // them; the outputs printed are the last call's, --stats times the first.
    bool first = true;
    CARVE_RETURN_IF_ERROR(TimeCalls(numbers.repeat, [&]() -> absl::Status {
      result = interpreter.Run("main", values);
      if (first) run_end = RunClock::Now(), first = false;
      return result.status();
    }, timing));
  } else {
    // The interpreter owns the inputs, so each is freed after its last use.
    result = interpreter.RunConsuming("main", std::move(values));
    run_end = RunClock::Now();
  }
  if (!result.ok()) return result.status();
  const std::vector<NDArray> outputs = FlattenTensors(*result);
  if (std::vector<std::string> skipped = NonTensorParts(*result); !skipped.empty()) {
    *env.err << fmt::format("carve: warning: not printed: {} (run prints tensors only)\n",
                            fmt::join(skipped, ", "));
  }
  if (numbers.repeat.repeat > 0) {
    *env.err << fmt::format("prepare_us: {:.1f}\n", prepare_us) << FormatCallTiming("", timing);
  }
  if (args.Has("--stats")) {
    // Of the first call; at microsecond resolution.
    const InterpreterStats& st = interpreter.stats();
    *env.err << fmt::format(
        "run_cpu_seconds: {:.6f}\nrun_wall_seconds: {:.6f}\nkernel_calls: {}\n"
        "peak_live_bytes: {}\nbaseline_rss_bytes: {}\npeak_rss_bytes: {}\n",
        run_end.cpu - run_start.cpu, run_end.wall - run_start.wall, st.kernel_calls,
        st.peak_live_bytes, baseline_rss, PeakRssBytes());
  }
  return WriteRunOutputs(outputs, args, env);
}

void AddRunCommands(std::vector<Command>& commands) {
  // Two modes: evaluate (the default) and `--compare`, which runs the module
  // twice in its own way (cmd_compare.cc) and prints errors, not outputs, so
  // the options about one run's outputs and timing do not apply to it.
  const std::vector<std::string> run_only = {"run"};
  const std::vector<std::string> compare_only = {"compare"};
  commands.push_back(Command{
      "run",
      "carve run FILE [--input NAME=F.npy]... [--params DIR] [--seed N] [--input-dist D] "
      "[--out DIR] [--threads N] [--stats] [--repeat N [--warmup K]] [--max-tensor-bytes N] "
      "[--compare BACKEND[,...] [--rtol R] [--atol A] [--bind NAME,...] [--report] "
      "[--require-offload]]",
      "evaluate @main with the reference interpreter",
      {{"--input", true, true, "", "NAME=F.npy: the value of parameter %NAME"},
       {"--params", true, false, "",
        "DIR: bind DIR/NAME.npy to parameter %NAME (every .npy must name one)"},
       {"--seed", true, false, "", "seed of the generator filling the other inputs (0)"},
       {"--input-dist", true, false, "",
        "uniform|normal|ones: how the other inputs are generated (uniform: floats in [-1, 1))"},
       {"--max-tensor-bytes", true, false, "",
        "N[K|M|G]: largest tensor the run may create (default: half the physical memory, "
        "or $CARVE_MAX_TENSOR_BYTES)"},
       {"--out", true, false, "", "DIR: write the outputs as out0.npy, out1.npy, ...", run_only},
       {"--threads", true, false, "",
        "threads for every kernel library: carve's kernels and oneDNN's (1)", run_only},
       {"--stats", false, false, "",
        "print the (first) call's CPU and wall time, kernel calls, peak live tensor bytes, RSS "
        "before any tensor and peak RSS to stderr",
        run_only},
       {"--repeat", true, false, "",
        "N: after the first call, call @main N more times on the same inputs and print the "
        "load time, the first call's and the latency (min, median, p90) in microseconds to "
        "stderr"},
       {"--warmup", true, false, "", "K: untimed calls between the first and the --repeat ones (0)"},
       // --- `--compare` options (cmd_compare.cc) ---
       {"--compare", true, false, "",
        "BACKEND[,...]: also run partitioned for the backends and print the errors"},
       {"--rtol", true, false, "", "relative tolerance of --compare (default per dtype)",
        compare_only},
       {"--atol", true, false, "", "absolute tolerance of --compare (default per dtype)",
        compare_only},
       {"--bind", true, true, "", "NAME[,...]: bind these inputs as constants before partitioning",
        compare_only},
       {"--patterns", true, true, "", "F.pat: load backend specs", compare_only},
       {"--report", false, false, "", "print the partition report first", compare_only},
       {"--require-offload", false, false, "",
        "fail (exit 1) when nothing was offloaded", compare_only}},
      RunRun,
      {{"run", ""}, {"compare", "--compare"}}});
  commands.back().cancellable = true;
}

}  // namespace carve::cli
