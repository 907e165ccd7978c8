// A bump allocator that owns IR nodes. Nodes are never freed one by one: the
// whole arena goes away with the last module that refers to it. Destructors
// are not run, so arena objects must be trivially destructible or own their
// heap memory through another arena-registered cleanup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace carve {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  // Raw, aligned storage of `size` bytes.
  void* Allocate(size_t size, size_t align);

  // Constructs a T in the arena. Non-trivial destructors are registered and
  // run when the arena is destroyed.
  template <typename T, typename... Args>
  T* New(Args&&... args) {
    void* mem = Allocate(sizeof(T), alignof(T));
    T* obj = new (mem) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>) {
      cleanups_.push_back([obj] { obj->~T(); });
    }
    return obj;
  }

  // Copies a sequence into the arena and returns a view of the copy.
  template <typename T>
  std::span<const T> CopyArray(std::span<const T> items) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (items.empty()) return {};
    T* mem = static_cast<T*>(Allocate(sizeof(T) * items.size(), alignof(T)));
    std::memcpy(mem, items.data(), sizeof(T) * items.size());
    return {mem, items.size()};
  }

  // Copies a string into the arena (not NUL-terminated).
  std::string_view CopyString(std::string_view s);

  // Total bytes handed out (for memory benchmarks).
  size_t bytes_allocated() const { return bytes_allocated_; }

 private:
  static constexpr size_t kBlockSize = 64 * 1024;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* cursor_ = nullptr;
  std::byte* limit_ = nullptr;
  size_t bytes_allocated_ = 0;
  std::vector<std::function<void()>> cleanups_;
};

}  // namespace carve
