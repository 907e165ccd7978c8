// Shared pieces of the dnnl backend's oneDNN kernels: the CPU engine, memory
// descriptors for Relay layouts, post-ops for fused activations, and the
// conversion of oneDNN's exceptions into statuses (carve never lets one
// escape).
//
// Tensors are described to oneDNN by dims in its logical order (N, C, D, H,
// W for data; [G,] O, I, D, H, W for weights) with the strides of the Relay
// layout the tensor is stored in, so any permutation layout (NCHW, NHWC,
// OIHW, HWIO, OHWI, IOHW, ...) is passed without a copy and without a
// format-tag table.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/dnnl/dnnl_transpose.h"
#include "backends/kernels/fusion.h"
#include "backends/runtime/node_kernel.h"
#include "ir/ndarray.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace carve::dnnl_backend {

// The process's CPU engine. Creating it first sets oneDNN's primitive cache
// capacity (kPrimitiveCacheCapacity) unless DNNL_PRIMITIVE_CACHE_CAPACITY
// is set in the environment.
const dnnl::engine& Engine();

// Primitives oneDNN keeps for re-creation with the same descriptor (one
// runtime per offloaded function and thread pool: a second pool or a
// respecialised function finds its primitives there instead of JIT-compiling
// them again). oneDNN's default, stated so carve does not depend on it.
inline constexpr int kPrimitiveCacheCapacity = 1024;

// Sets the number of threads oneDNN's primitives run on, for primitives
// executed from the calling thread (OpenMP keeps the count per thread).
void SetOneDnnThreads(int threads);

// Row-major strides of `shape`, permuted into `logical` letter order: the
// stride of logical axis L is the stride of L's position in `layout`
// ("NHWC" data read as "NCHW"). nullopt when a letter of `logical` is not in
// `layout` or the layout has letters `logical` lacks.
std::optional<std::vector<int64_t>> LogicalStrides(std::string_view layout,
                                                   const std::vector<int64_t>& shape,
                                                   std::string_view logical);

// A float32 descriptor with explicit dims and strides.
dnnl::memory::desc F32Desc(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides);
// A float32 descriptor of a dense row-major tensor.
dnnl::memory::desc F32Plain(const std::vector<int64_t>& dims);

// A memory object of its own storage, written once so its pages are mapped
// now: kernels allocate their buffers when they are built (while the
// runtime is prepared, as ORT's session creation does), and a first call
// that faulted them in instead paid 1.5-2.4 us per 4 KB page on this VM.
dnnl::memory TouchedMemory(const dnnl::memory::desc& desc);

// A memory object over a tensor's storage (no copy).
dnnl::memory Wrap(const dnnl::memory::desc& desc, const NDArray& tensor);

// A oneDNN memory in the layout its producing primitive chose (a blocked
// format), passed to the next oneDNN kernels of the graph as is; `plain`
// describes the Relay layout of `shape` that ToPlain converts to.
class DnnlTensor : public NativeTensor {
 public:
  DnnlTensor(dnnl::memory mem, dnnl::memory::desc plain, std::vector<int64_t> shape)
      : mem_(std::move(mem)), plain_(std::move(plain)), shape_(std::move(shape)) {}
  const dnnl::memory& memory() const { return mem_; }
  // The Relay layout of the tensor, as its producer read it.
  const dnnl::memory::desc& plain() const { return plain_; }
  absl::StatusOr<NDArray> ToPlain() const override;

 private:
  dnnl::memory mem_;
  dnnl::memory::desc plain_;
  std::vector<int64_t> shape_;
};

// A oneDNN kernel with one float32 output of shape out_shape_: Run allocates
// it and RunInto computes into it, writing every element (the output is not
// zero-filled first: that was a pass over every result, 9% of ppocr's dnnl
// time).
class IntoKernel : public NodeKernel {
 public:
  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override;
  // Run and a plain RunNative output allocate it (AllocOutput) on every call.
  bool FreshOutputs() const override { return true; }
  // RunInto computes into any tensor of out_shape_: AllocOutput hands it
  // the runtime's destination when there is one.
  bool WritesToDestination() const override { return true; }
  void SetDestination(NDArray dst) override { destination_ = std::move(dst); }

 protected:
  // A tensor of out_shape_ for RunInto to fill (the destination the runtime
  // set for this call, else a new one): unspecified contents, or zeros when
  // an input is empty (oneDNN then computes nothing).
  NDArray AllocOutput(std::span<const NDArray> inputs);
  // The same for RunNative's inputs (a native one empty when its memory is).
  NDArray AllocOutput(std::span<const KernelValue> inputs);
  virtual absl::Status RunInto(std::span<const NDArray> inputs, NDArray& out) = 0;
  std::vector<int64_t> out_shape_;

 private:
  // The new output, or the destination (taken: it serves one call), zeroed
  // when `zero`.
  NDArray TakeOutput(bool zero);
  NDArray destination_;
};

// `cached` pointed at `tensor`'s storage: created with `desc` on the first
// call, then only re-pointed (creating a memory object on every call is a
// tenth of a small network's time).
dnnl::memory& Rebind(dnnl::memory& cached, const dnnl::memory::desc& desc, const NDArray& tensor);

// `mem` in `desc`: itself when the layouts agree, else a reordered copy.
// For the once-only reorders of constant weights; per-call conversions use
// a LayoutReorder.
dnnl::memory Reorder(const dnnl::memory& mem, const dnnl::memory::desc& desc, dnnl::stream& s);

// Storage a kernel needs only while it runs (a conversion's result, a
// primitive's scratchpad), shared by every kernel that runs on the thread:
// the kernels of the JSON runtimes run one at a time on the calling thread
// (oneDNN's own threads work inside a call), so one buffer per kind and
// thread, as large as the largest request, serves them all. Each kernel
// holding its own was most of a dnnl runtime's heap (ppocr: 56
// convolutions, each with a buffer for its converted input and its
// scratchpad). The kinds are the buffers one kernel may use at once.
enum class Scratch { kSource, kResult, kScratchpad };

// A memory of a fixed descriptor over the calling thread's buffer of one
// kind. Making it grows (and touches) that buffer, so a kernel built on the
// thread that runs it page-faults nothing in its first call.
class SharedMemory {
 public:
  SharedMemory() = default;
  SharedMemory(const dnnl::memory::desc& desc, Scratch kind);
  explicit operator bool() const { return bool(mem_); }
  // The memory, pointed at this thread's buffer (valid until the next Get
  // of the same kind on this thread).
  const dnnl::memory& Get();

 private:
  dnnl::memory mem_;
  Scratch kind_ = Scratch::kSource;
  size_t size_ = 0;
  void* bound_ = nullptr;
};

// A conversion between two fixed layouts prepared when a kernel is built:
// the reorder primitive and the buffer it writes, so a call converts
// without creating a primitive or allocating (what TVM's DNNL runtime and
// oneDNN's examples do). Plain <-> channels-last conversions are carve's
// transposes instead (dnnl_transpose.h: 3-5x faster than oneDNN's).
class LayoutReorder {
 public:
  LayoutReorder() = default;
  LayoutReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

  // Whether the layouts agree (Apply then returns its argument).
  bool identity() const { return identity_; }
  // Allocates Apply's buffer now rather than on the first conversion (its
  // own: for a result kept beyond the kernel's call).
  void PrepareApply();
  // Apply writes the thread's shared buffer of `kind` (see Scratch).
  void ShareApply(Scratch kind);
  // `src` (laid out as `from`) in `to`: `src` itself when the layouts agree,
  // else the buffer, overwritten.
  dnnl::memory Apply(const dnnl::memory& src, dnnl::stream& s);
  // Converts `src` (as `from`) into `dst` (as `to`), copying even when the
  // layouts agree.
  void Into(const dnnl::memory& src, const dnnl::memory& dst, dnnl::stream& s);

 private:
  bool identity_ = true;
  std::optional<ChannelsTranspose> transpose_;  // else primitive_
  dnnl::reorder primitive_;
  dnnl::memory::desc to_;
  dnnl::memory buffer_;  // Apply's, made by PrepareApply or the first conversion
  SharedMemory shared_;  // else Apply's, after ShareApply
};

// The user-managed scratchpad of a primitive (attr must have
// set_scratchpad_mode(user)), in the thread's shared scratchpad buffer;
// empty when it needs none. Passed as DNNL_ARG_SCRATCHPAD (Get()) on every
// call.
SharedMemory ScratchpadFor(const dnnl::memory::desc& desc);
// Attributes asking for a user-managed scratchpad (and nothing else).
dnnl::primitive_attr UserScratchpadAttr();

// Appends the post-op of `act` (after a sum, if any) to `ops`, reading the
// activation's scalar constants from the node's constant inputs.
// Unimplemented when oneDNN has no exact equivalent (a GELU written with
// other constants, a non-constant scalar): the caller then falls back to
// carve's kernels.
absl::Status AppendActivation(const ActivationSpec& act, const NodeBuildContext& ctx,
                              dnnl::post_ops& ops);

// Runs `fn`, turning a dnnl::error into a status (Unimplemented for
// "unimplemented" primitives, Internal otherwise).
absl::Status Guard(const std::function<void()>& fn);

// A kernel factory returning Unimplemented when a node needs something the
// oneDNN kernels do not do, so the backend can fall back.
inline bool IsFallback(const absl::Status& s) { return s.code() == absl::StatusCode::kUnimplemented; }

}  // namespace carve::dnnl_backend
