// Buffers a dnnl kernel needs only while it runs (SharedMemory,
// dnnl_common.h) are one per kind and thread: kernels of one kind share
// storage, grown to the largest request; kinds and threads do not share.
#include <thread>

#include "backends/dnnl/dnnl_common.h"
#include "gtest/gtest.h"

namespace carve::dnnl_backend {
namespace {

void* Handle(SharedMemory& m) { return m.Get().get_data_handle(); }

TEST(DnnlSharedMemory, OneBufferPerKindAndThread) {
  SharedMemory small(F32Plain({4, 8}), Scratch::kSource);
  SharedMemory large(F32Plain({64, 1024}), Scratch::kSource);
  SharedMemory result(F32Plain({4, 8}), Scratch::kResult);
  // The larger request grew the kind's buffer; both now point at it.
  EXPECT_EQ(Handle(small), Handle(large));
  EXPECT_NE(Handle(small), Handle(result));
  // Writable over the whole of the largest descriptor.
  float* p = static_cast<float*>(Handle(large));
  p[64 * 1024 - 1] = 1.f;
  void* other = nullptr;
  std::thread([&] { other = Handle(small); }).join();
  EXPECT_NE(other, Handle(small));
}

}  // namespace
}  // namespace carve::dnnl_backend
