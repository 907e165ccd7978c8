// How a backend's JSON runtime plugs into the interpreter.
//
// Every built-in backend registers its node kernels (BackendKernels) in the
// BackendRuntimeRegistry and, through RegisterBackendRuntime, an external
// runtime for Compiler="<backend>" functions in interpreter/external.h's
// registry. When the interpreter calls an offloaded function, the runtime
//   1. serializes the function with the JSON codegen (backends/json), writes
//      the graph as text and parses it back, so what runs is exactly what
//      `carve codegen` emits,
//   2. builds a JsonRuntime with the backend's kernels (once per function:
//      the runtime is cached while the function's module is alive),
//   3. runs it on the arguments (tuples flattened, TVM's convention) and
//      rebuilds the result value from the function's return type.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backends/json/serializer.h"
#include "backends/runtime/json_runtime.h"
#include "backends/runtime/node_kernel.h"
#include "interpreter/external.h"
#include "ir/module.h"

namespace carve {

// The node kernels of the built-in backends, by backend name. Thread-safe.
class BackendRuntimeRegistry {
 public:
  static BackendRuntimeRegistry& Global();
  void Register(std::shared_ptr<const BackendKernels> kernels);
  // nullptr when `backend` has no runtime.
  std::shared_ptr<const BackendKernels> Find(std::string_view backend) const;
  std::vector<std::string> Names() const;
  // Tells every registered backend's library to use `threads` threads
  // (process-wide; see SetBackendThreads).
  void SetThreads(int threads) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const BackendKernels>> kernels_;
};

// One kernel node run inside an offloaded function, for `--compare`.
struct OffloadedNodeEvent {
  const Function* function = nullptr;       // the Compiler function
  const SerializedFunction* serialized = nullptr;  // its graph; sources[nid] is the Relay node
  uint32_t nid = 0;
  std::span<const NDArray> inputs;
  std::span<const NDArray> outputs;
};
using OffloadedNodeObserver = std::function<void(const OffloadedNodeEvent& event)>;

struct BackendRuntimeOptions {
  JsonRuntimeOptions runtime;
  // Called after each kernel node (may be empty).
  OffloadedNodeObserver observer;
};

// The external runtime that runs Compiler functions on `kernels`.
ExternalFn MakeBackendRuntime(std::shared_ptr<const BackendKernels> kernels,
                              BackendRuntimeOptions options = {});

// Sets the thread count of every kernel library the backends call (oneDNN
// runs its primitives on OpenMP threads, whose default is one per core): what
// `carve run --threads N` does besides handing the interpreter's kernels a
// pool of N threads. OpenMP keeps the count per calling thread, so call it on
// the thread that runs the interpreter.
void SetBackendThreads(int threads);

// Registers `kernels` in the BackendRuntimeRegistry and its runtime in
// ExternalRegistry::Global().
void RegisterBackendRuntime(std::shared_ptr<const BackendKernels> kernels);

// Builds, before the first call, the runtime of every Compiler function of
// `mod` whose backend registered one (RegisterBackendRuntime) and whose
// parameters have static shapes, for an interpreter of `mod` with thread
// pool `device` (null: none): serialization and kernel preparation (oneDNN
// primitive creation and JIT, weight reorders) then happen here, as TVM's
// JSON runtime builds its engine when the module loads and ONNX Runtime
// when the session is created, instead of in the first call. Returns the
// number of runtimes built; a function that fails is left to its first call
// to report (it may never run). Call it again for another module or pool.
int PrepareBackendRuntimes(const Module& mod, const Eigen::ThreadPoolDevice* device);

// Builds the result value of a function of type `ret` from its flattened
// output tensors (a tensor, or nested tuples of tensors).
absl::StatusOr<Value> UnflattenResult(const Type* ret, std::span<const NDArray> outputs);

}  // namespace carve

// At namespace scope in a backend's kernels file:
//   CARVE_REGISTER_BACKEND_RUNTIME(MakeDnnlKernels);
// where MakeDnnlKernels() returns std::shared_ptr<const BackendKernels>.
#define CARVE_BACKEND_CONCAT_INNER_(a, b) a##b
#define CARVE_BACKEND_CONCAT_(a, b) CARVE_BACKEND_CONCAT_INNER_(a, b)
#define CARVE_REGISTER_BACKEND_RUNTIME(make_fn)                                  \
  static const bool CARVE_BACKEND_CONCAT_(backend_runtime_reg_, __LINE__) = [] { \
    ::carve::RegisterBackendRuntime(make_fn());                                  \
    return true;                                                                 \
  }()
