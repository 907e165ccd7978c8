// LocalTable: the parser's local variables by name (see parser_locals.h).
#include <bit>
#include <cstring>

#include "grammar/parser_impl.h"
#include "grammar/parser_locals.h"

namespace carve::parser_internal {

namespace {

// Fewer slots than this are kept (zeroed) by Clear; more are freed, so that
// what a large definition needed goes back to the allocator for the passes.
constexpr size_t kKeptSlots = 1024;

}  // namespace

uint64_t LocalTable::Key(std::string_view name) const {
  const size_t n = name.size();
  if (n > kMaxInline) return NameHash{}(name) | kHashed;
  uint64_t bytes = 0;
  const auto p = reinterpret_cast<uintptr_t>(name.data());
  const auto begin = reinterpret_cast<uintptr_t>(text_.data());
  if constexpr (std::endian::native == std::endian::little) {
    if (p >= begin && p - begin + 8 <= text_.size()) {
      // One load and a mask rather than a copy of n bytes.
      std::memcpy(&bytes, name.data(), 8);
      bytes &= (uint64_t{1} << (8 * n)) - 1;
      return bytes | uint64_t{n} << 56;
    }
  }
  for (size_t k = 0; k < n; ++k) bytes |= uint64_t{static_cast<uint8_t>(name[k])} << (8 * k);
  return bytes | uint64_t{n} << 56;
}

size_t LocalTable::IndexOf(std::string_view name) const {
  const uint64_t key = Key(name);
  size_t i = Home(key);
  while (!Matches(slots_[i], key, name)) i = (i + 1) & mask_;
  return i;
}

const Var* LocalTable::Bind(const Var* var, uint64_t key) {
  const std::string_view name = var->name();
  // At most 7/8 full, as abseil's tables.
  const bool full = (size_ + 1) * 8 > capacity() * 7;
  if (slots_ != nullptr) {
    size_t i = Home(key);
    for (; slots_[i].var != nullptr; i = (i + 1) & mask_) {
      if (Matches(slots_[i], key, name)) {
        const Var* previous = slots_[i].var;
        slots_[i].var = var;
        return previous;
      }
    }
    if (!full) {
      slots_[i] = Slot{key, var};
      ++size_;
      return nullptr;
    }
  }
  Grow();
  Insert(Slot{key, var});
  ++size_;
  return nullptr;
}

void LocalTable::Insert(Slot slot) {
  size_t i = Home(slot.key);
  while (slots_[i].var != nullptr) i = (i + 1) & mask_;
  slots_[i] = slot;
}

void LocalTable::Reserve(size_t n) {
  if (n * 8 <= capacity() * 7) return;
  Rehash(std::bit_ceil(std::max<size_t>(16, n + n / 7 + 1)));
}

void LocalTable::Rehash(size_t capacity) {
  std::unique_ptr<Slot[]> old = std::move(slots_);
  const size_t old_capacity = old == nullptr ? 0 : mask_ + 1;
  slots_ = std::make_unique<Slot[]>(capacity);
  mask_ = capacity - 1;
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  // The keys are rehashed without reading the names.
  for (size_t k = 0; k < old_capacity; ++k) {
    if (old[k].var != nullptr) Insert(old[k]);
  }
}

void LocalTable::Restore(std::string_view name, const Var* previous) {
  const size_t i = IndexOf(name);
  if (previous != nullptr) {
    slots_[i].var = previous;
  } else {
    EraseAt(i);
  }
}

void LocalTable::EraseAt(size_t i) {
  // Backward-shift deletion: each later slot of the probe run moves into the
  // hole when its home is not between the hole and itself, so that no
  // tombstones are needed.
  for (size_t j = (i + 1) & mask_; slots_[j].var != nullptr; j = (j + 1) & mask_) {
    const size_t home = Home(slots_[j].key);
    if (((j - home) & mask_) >= ((j - i) & mask_)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{0, nullptr};
  --size_;
}

void LocalTable::Clear() {
  if (capacity() > kKeptSlots) {
    slots_.reset();
    mask_ = 0;
    shift_ = 64;
  } else if (slots_ != nullptr) {
    std::fill_n(slots_.get(), mask_ + 1, Slot{0, nullptr});
  }
  size_ = 0;
}

}  // namespace carve::parser_internal
