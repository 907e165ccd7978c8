#include "support/arena.h"

#include <algorithm>

namespace carve {

Arena::~Arena() {
  for (auto it = cleanups_.rbegin(); it != cleanups_.rend(); ++it) (*it)();
}

void* Arena::Allocate(size_t size, size_t align) {
  auto cur = reinterpret_cast<uintptr_t>(cursor_);
  uintptr_t aligned = (cur + align - 1) & ~(uintptr_t(align) - 1);
  if (cursor_ == nullptr || aligned + size > reinterpret_cast<uintptr_t>(limit_)) {
    size_t block = std::max(kBlockSize, size + align);
    blocks_.emplace_back(new std::byte[block]);
    cursor_ = blocks_.back().get();
    limit_ = cursor_ + block;
    cur = reinterpret_cast<uintptr_t>(cursor_);
    aligned = (cur + align - 1) & ~(uintptr_t(align) - 1);
  }
  cursor_ = reinterpret_cast<std::byte*>(aligned + size);
  bytes_allocated_ += size;
  return reinterpret_cast<void*>(aligned);
}

std::string_view Arena::CopyString(std::string_view s) {
  if (s.empty()) return {};
  char* mem = static_cast<char*>(Allocate(s.size(), 1));
  std::memcpy(mem, s.data(), s.size());
  return {mem, s.size()};
}

}  // namespace carve
