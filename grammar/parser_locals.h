// The parser's table of local variables: the innermost binding of each name.
// Not a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "ir/expr.h"

namespace carve::parser_internal {

// Open addressing with linear probing over 16-byte slots {key, variable},
// keyed without reading the variable: a name of up to 7 bytes is its own key
// (its bytes and length packed in one word), so looking it up touches one
// slot, not the variable and the text of its declaration as well (a
// definition may have 200k parameters, and each use is a lookup). A longer
// name is keyed by its hash and confirmed against the variable's name.
class LocalTable {
 public:
  // Names are read 8 bytes at a time when those lie inside `text`.
  explicit LocalTable(std::string_view text) : text_(text) {}

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return mask_ + (slots_ != nullptr); }

  // The variable bound to `name`, or nullptr.
  const Var* Find(std::string_view name) const {
    if (slots_ == nullptr) return nullptr;
    const uint64_t key = Key(name);
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.var == nullptr) return nullptr;
      if (Matches(s, key, name)) return s.var;
    }
  }
  // The key of `name`, for Prefetch and Bind.
  uint64_t Key(std::string_view name) const;
  // Starts loading the slot where the search for `key` begins, so that a
  // Bind issued after other work does not wait for it.
  void Prefetch(uint64_t key) const {
    if (slots_ != nullptr) __builtin_prefetch(&slots_[Home(key)], 1);
  }
  // Binds `var` under its name, whose key is `key`; returns the variable
  // that was bound to the name before (which it replaces), or nullptr.
  const Var* Bind(const Var* var, uint64_t key);
  const Var* Bind(const Var* var) { return Bind(var, Key(var->name())); }
  // Makes `previous` the binding of the bound `name` again; nullptr unbinds
  // the name.
  void Restore(std::string_view name, const Var* previous);
  // a == b, without a call to memcmp for short names.
  bool SameName(std::string_view a, std::string_view b) const {
    if (a.size() != b.size()) return false;
    return a.size() <= kMaxInline ? Key(a) == Key(b) : a == b;
  }
  // Makes room for `n` bindings in all.
  void Reserve(size_t n);
  // Unbinds every name (and frees the slots when there are many).
  void Clear();

 private:
  struct Slot {
    uint64_t key;
    const Var* var;  // nullptr: empty
  };
  // Long names have this bit set in their key; short ones never do.
  static constexpr uint64_t kHashed = uint64_t{1} << 63;
  static constexpr size_t kMaxInline = 7;

  size_t Home(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }
  static bool Matches(const Slot& s, uint64_t key, std::string_view name) {
    return s.key == key && ((key & kHashed) == 0 || s.var->name() == name);
  }
  size_t IndexOf(std::string_view name) const;
  void Insert(Slot slot);
  void Grow() { Rehash(slots_ == nullptr ? 16 : (mask_ + 1) * 2); }
  void Rehash(size_t capacity);
  void EraseAt(size_t i);

  std::string_view text_;
  std::unique_ptr<Slot[]> slots_;
  size_t mask_ = 0;  // capacity - 1
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace carve::parser_internal
