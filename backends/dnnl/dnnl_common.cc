#include "backends/dnnl/dnnl_common.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numbers>

#include "fmt/format.h"
#include "support/status_macros.h"

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
// From libgomp (linked by backends/CMakeLists.txt); declared here rather
// than through <omp.h>, which only some compilers ship.
extern "C" void omp_set_num_threads(int threads);
#endif

namespace carve::dnnl_backend {
namespace {

bool Near(double a, double b) { return std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(b)); }

// The scalar constant input `index`, or nullopt when it is not a constant.
std::optional<double> ConstScalar(const NodeBuildContext& ctx, size_t index) {
  const NDArray& t = ctx.const_inputs[index];
  if (!t.defined() || t.num_elements() != 1) return std::nullopt;
  return t.GetAsDouble(0);
}

// True when the scalars of `act` are constants equal to `expected`.
bool ConstantsAre(const ActivationSpec& act, const NodeBuildContext& ctx,
                  std::initializer_list<double> expected) {
  if (act.scalars.size() != expected.size()) return false;
  size_t i = 0;
  for (double e : expected) {
    std::optional<double> v = ConstScalar(ctx, act.scalars[i++]);
    if (!v || !Near(*v, e)) return false;
  }
  return true;
}

}  // namespace

const dnnl::engine& Engine() {
  static const auto* engine = [] {
    if (std::getenv("DNNL_PRIMITIVE_CACHE_CAPACITY") == nullptr) {
      dnnl::set_primitive_cache_capacity(kPrimitiveCacheCapacity);
    }
    return new dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return *engine;
}

void SetOneDnnThreads(int threads) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  omp_set_num_threads(threads);
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
  (void)threads;  // a sequential build runs on the calling thread only
#else
#error "SetOneDnnThreads knows OpenMP and sequential oneDNN builds only"
#endif
}

std::optional<std::vector<int64_t>> LogicalStrides(std::string_view layout,
                                                   const std::vector<int64_t>& shape,
                                                   std::string_view logical) {
  if (layout.size() != shape.size() || logical.size() != layout.size()) return std::nullopt;
  std::vector<int64_t> physical(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) physical[i - 1] = physical[i] * shape[i];
  std::vector<int64_t> out;
  for (char letter : logical) {
    size_t pos = layout.find(letter);
    if (pos == std::string_view::npos) return std::nullopt;
    out.push_back(physical[pos]);
  }
  return out;
}

dnnl::memory::desc F32Desc(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()),
                            dnnl::memory::data_type::f32,
                            dnnl::memory::dims(strides.begin(), strides.end()));
}

dnnl::memory::desc F32Plain(const std::vector<int64_t>& dims) {
  // oneDNN reads a desc without dims as "no memory" (a primitive over it
  // computes nothing): a scalar is its one element as shape (1).
  if (dims.empty()) return F32Plain({1});
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return F32Desc(dims, strides);
}

dnnl::memory TouchedMemory(const dnnl::memory::desc& desc) {
  dnnl::memory m(desc, Engine());
  if (desc.get_size() > 0) std::memset(m.get_data_handle(), 0, desc.get_size());
  return m;
}

dnnl::memory Wrap(const dnnl::memory::desc& desc, const NDArray& tensor) {
  return dnnl::memory(desc, Engine(), const_cast<void*>(tensor.raw_data()));
}

absl::StatusOr<NDArray> DnnlTensor::ToPlain() const {
  NDArray out = NDArray::Uninitialized(DataType::Float(32), shape_);  // the reorder writes it all
  CARVE_RETURN_IF_ERROR(Guard([&] {
    dnnl::stream s(Engine());
    dnnl::memory src = mem_, dst = Wrap(plain_, out);
    dnnl::reorder(src, dst).execute(s, src, dst);
    s.wait();
  }));
  return out;
}

NDArray IntoKernel::TakeOutput(bool zero) {
  if (!destination_.defined()) {
    return zero ? NDArray::Empty(DataType::Float(32), out_shape_)
                : NDArray::Uninitialized(DataType::Float(32), out_shape_);
  }
  NDArray out = std::move(destination_);
  destination_ = NDArray();
  if (zero) std::memset(out.raw_data(), 0, out.nbytes());
  return out;
}

NDArray IntoKernel::AllocOutput(std::span<const NDArray> inputs) {
  // oneDNN skips a primitive over an empty operand and leaves its
  // destination as it was: zeros then, as a fresh tensor always had.
  bool empty = false;
  for (const NDArray& t : inputs) empty = empty || (t.defined() && t.num_elements() == 0);
  return TakeOutput(empty);
}

NDArray IntoKernel::AllocOutput(std::span<const KernelValue> inputs) {
  bool empty = false;
  for (const KernelValue& v : inputs) {
    const auto* native = dynamic_cast<const DnnlTensor*>(v.native.get());
    empty = empty || (native != nullptr ? native->memory().get_desc().get_size() == 0
                                        : v.plain.defined() && v.plain.num_elements() == 0);
  }
  return TakeOutput(empty);
}

absl::StatusOr<std::vector<NDArray>> IntoKernel::Run(std::span<const NDArray> inputs) {
  NDArray out = AllocOutput(inputs);
  CARVE_RETURN_IF_ERROR(RunInto(inputs, out));
  return OneTensor(std::move(out));
}

dnnl::memory& Rebind(dnnl::memory& cached, const dnnl::memory::desc& desc, const NDArray& tensor) {
  if (!cached) {
    cached = Wrap(desc, tensor);
  } else {
    cached.set_data_handle(const_cast<void*>(tensor.raw_data()));
  }
  return cached;
}

dnnl::memory Reorder(const dnnl::memory& mem, const dnnl::memory::desc& desc, dnnl::stream& s) {
  if (mem.get_desc() == desc) return mem;
  dnnl::memory src = mem;
  dnnl::memory out(desc, Engine());
  dnnl::reorder(src, out).execute(s, src, out);
  return out;
}

LayoutReorder::LayoutReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to)
    : identity_(from == to), to_(to) {
  if (identity_) return;
  transpose_ = PlanChannelsTranspose(from, to);
  if (!transpose_) primitive_ = dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), from, Engine(), to));
}

namespace {

// The calling thread's buffer of each Scratch kind, grown to the largest
// request; 64-byte aligned, zero-filled when grown.
struct ThreadScratch {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> buffers[3];
  size_t sizes[3] = {0, 0, 0};

  void* Reserve(Scratch kind, size_t size) {
    const int k = int(kind);
    if (size > sizes[k]) {
      size_t rounded = (size + 4095) / 4096 * 4096;
      void* p = std::aligned_alloc(64, rounded);
      if (p == nullptr) throw dnnl::error(dnnl_out_of_memory, "no memory for a scratch buffer");
      std::memset(p, 0, rounded);
      buffers[k].reset(p);
      sizes[k] = rounded;
    }
    return buffers[k].get();
  }
};

ThreadScratch& Scratches() {
  thread_local ThreadScratch scratch;
  return scratch;
}

}  // namespace

SharedMemory::SharedMemory(const dnnl::memory::desc& desc, Scratch kind)
    : mem_(desc, Engine(), DNNL_MEMORY_NONE), kind_(kind), size_(desc.get_size()) {
  Get();
}

const dnnl::memory& SharedMemory::Get() {
  void* p = Scratches().Reserve(kind_, size_);
  if (p != bound_) {
    mem_.set_data_handle(p);
    bound_ = p;
  }
  return mem_;
}

void LayoutReorder::ShareApply(Scratch kind) {
  buffer_ = dnnl::memory();
  if (!identity_) shared_ = SharedMemory(to_, kind);
}

dnnl::memory LayoutReorder::Apply(const dnnl::memory& src, dnnl::stream& s) {
  if (identity_) return src;
  if (shared_) {
    const dnnl::memory& buffer = shared_.Get();
    Into(src, buffer, s);
    return buffer;
  }
  if (!buffer_) PrepareApply();
  Into(src, buffer_, s);
  return buffer_;
}

void LayoutReorder::PrepareApply() {
  if (!identity_ && !buffer_) buffer_ = TouchedMemory(to_);
}

void LayoutReorder::Into(const dnnl::memory& src, const dnnl::memory& dst, dnnl::stream& s) {
  if (identity_) {
    std::memcpy(dst.get_data_handle(), src.get_data_handle(), to_.get_size());
    return;
  }
  if (transpose_) {
    // CPU streams run in order on the calling thread: earlier primitives
    // have written `src`.
    transpose_->Run(static_cast<const float*>(src.get_data_handle()),
                    static_cast<float*>(dst.get_data_handle()));
    return;
  }
  primitive_.execute(s, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

SharedMemory ScratchpadFor(const dnnl::memory::desc& desc) {
  if (desc.get_size() == 0) return SharedMemory();
  return SharedMemory(desc, Scratch::kScratchpad);
}

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

absl::Status AppendActivation(const ActivationSpec& act, const NodeBuildContext& ctx,
                              dnnl::post_ops& ops) {
  using dnnl::algorithm;
  switch (act.kind) {
    case Activation::kNone: return absl::OkStatus();
    case Activation::kRelu: ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f); break;
    case Activation::kSigmoid: ops.append_eltwise(1.f, algorithm::eltwise_logistic, 0.f, 0.f); break;
    case Activation::kTanh: ops.append_eltwise(1.f, algorithm::eltwise_tanh, 0.f, 0.f); break;
    case Activation::kClip:
      ops.append_eltwise(1.f, algorithm::eltwise_clip, float(act.lo), float(act.hi));
      break;
    case Activation::kSwish: ops.append_eltwise(1.f, algorithm::eltwise_swish, 1.f, 0.f); break;
    case Activation::kGeluErf:
      if (!ConstantsAre(act, ctx, {std::sqrt(2.0), 1.0, 0.5})) {
        return absl::UnimplementedError("an erf-GELU with other constants");
      }
      ops.append_eltwise(1.f, algorithm::eltwise_gelu_erf, 0.f, 0.f);
      break;
    case Activation::kGeluTanh:
      if (!ConstantsAre(act, ctx, {3.0, 0.044715, std::sqrt(2.0 / std::numbers::pi), 1.0, 0.5})) {
        return absl::UnimplementedError("a tanh-GELU with other constants");
      }
      ops.append_eltwise(1.f, algorithm::eltwise_gelu_tanh, 0.f, 0.f);
      break;
    case Activation::kMish:
      if (!ConstantsAre(act, ctx, {1.0})) return absl::UnimplementedError("a mish with another constant");
      ops.append_eltwise(1.f, algorithm::eltwise_mish, 0.f, 0.f);
      break;
  }
  return absl::OkStatus();
}

absl::Status Guard(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    std::string what = e.what();
    if (e.status == dnnl_unimplemented) {
      return absl::UnimplementedError(fmt::format("oneDNN: {}", what));
    }
    return absl::InternalError(fmt::format("oneDNN: {}", what));
  }
  return absl::OkStatus();
}

}  // namespace carve::dnnl_backend
