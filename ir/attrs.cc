#include "ir/attrs.h"

#include <cmath>
#include <mutex>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "support/arena.h"

namespace carve {
namespace {

struct AttrStore {
  std::mutex mu;
  Arena arena;
  absl::flat_hash_set<std::string_view> strings;

  struct AttrsHash {
    size_t operator()(const Attrs* a) const {
      size_t h = absl::HashOf(a->schema(), a->entries().size());
      for (const AttrEntry& e : a->entries()) h = absl::HashOf(h, e.key, e.value);
      return h;
    }
  };
  struct AttrsEq {
    bool operator()(const Attrs* a, const Attrs* b) const {
      if (a->schema() != b->schema() || a->entries().size() != b->entries().size()) {
        return false;
      }
      for (size_t i = 0; i < a->entries().size(); ++i) {
        const AttrEntry& x = a->entries()[i];
        const AttrEntry& y = b->entries()[i];
        if (x.key != y.key || x.value.kind() != y.value.kind() || !(x.value == y.value)) {
          return false;
        }
        // Interned sets must be exactly equal, not within tolerance, and keep
        // their own VirtualDevice objects (the printer numbers meta entries
        // by object, as TVM does).
        if (x.value.kind() == AttrValue::Kind::kVirtualDevice &&
            x.value.as_virtual_device() != y.value.as_virtual_device()) {
          return false;
        }
        if (x.value.kind() == AttrValue::Kind::kFloat &&
            x.value.as_float() != y.value.as_float()) {
          return false;
        }
      }
      return true;
    }
  };
  absl::flat_hash_set<const Attrs*, AttrsHash, AttrsEq> sets;
};

AttrStore& Store() {
  static AttrStore* store = new AttrStore();
  return *store;
}

std::string_view InternStringLocked(AttrStore& s, std::string_view text) {
  auto it = s.strings.find(text);
  if (it != s.strings.end()) return *it;
  std::string_view copy = s.arena.CopyString(text);
  if (copy.data() == nullptr) copy = std::string_view("", 0);
  s.strings.insert(copy);
  return copy;
}

}  // namespace

std::string_view InternString(std::string_view text) {
  AttrStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  return InternStringLocked(s, text);
}

AttrValue AttrValue::Int(int64_t v, uint8_t bits) {
  AttrValue a;
  a.kind_ = Kind::kInt;
  a.i_ = v;
  a.bits_ = bits;
  return a;
}

AttrValue AttrValue::Bool(bool v) {
  AttrValue a;
  a.kind_ = Kind::kBool;
  a.i_ = v ? 1 : 0;
  return a;
}

AttrValue AttrValue::Float(double v) {
  AttrValue a;
  a.kind_ = Kind::kFloat;
  a.f_ = v;
  return a;
}

AttrValue AttrValue::Str(std::string_view s) {
  AttrValue a;
  a.kind_ = Kind::kString;
  a.s_ = InternString(s);
  return a;
}

AttrValue AttrValue::Array(std::span<const AttrValue> items) {
  AttrValue a;
  a.kind_ = Kind::kArray;
  AttrStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!items.empty()) {
    auto* mem = static_cast<AttrValue*>(
        s.arena.Allocate(sizeof(AttrValue) * items.size(), alignof(AttrValue)));
    for (size_t i = 0; i < items.size(); ++i) new (mem + i) AttrValue(items[i]);
    a.arr_ = {mem, items.size()};
  }
  return a;
}

AttrValue AttrValue::Array(std::initializer_list<AttrValue> items) {
  return Array(std::span<const AttrValue>(items.begin(), items.size()));
}

AttrValue AttrValue::Ints(std::initializer_list<int64_t> items) {
  std::vector<AttrValue> v;
  for (int64_t i : items) v.push_back(Int(i));
  return Array(v);
}

AttrValue AttrValue::Device(const VirtualDevice* device) {
  AttrValue a;
  a.kind_ = Kind::kVirtualDevice;
  a.device_ = device;
  return a;
}

std::optional<std::vector<int64_t>> AttrValue::AsInts() const {
  if (kind_ != Kind::kArray) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(arr_.size());
  for (const AttrValue& v : arr_) {
    if (v.kind() != Kind::kInt && v.kind() != Kind::kBool) return std::nullopt;
    out.push_back(v.as_int());
  }
  return out;
}

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case AttrValue::Kind::kNull: return true;
    case AttrValue::Kind::kInt: return a.i_ == b.i_ && a.bits_ == b.bits_;
    case AttrValue::Kind::kBool: return a.i_ == b.i_;
    case AttrValue::Kind::kFloat:
      return a.f_ == b.f_ || std::fabs(a.f_ - b.f_) < 1e-9 ||
             (std::isnan(a.f_) && std::isnan(b.f_));
    case AttrValue::Kind::kString: return a.s_ == b.s_;
    case AttrValue::Kind::kArray:
      return std::equal(a.arr_.begin(), a.arr_.end(), b.arr_.begin(), b.arr_.end());
    case AttrValue::Kind::kVirtualDevice: return *a.device_ == *b.device_;
  }
  return false;
}

int AttrsSchema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const AttrValue* Attrs::Find(std::string_view key) const {
  for (const AttrEntry& e : entries_) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

int64_t Attrs::GetInt(std::string_view key, int64_t fallback) const {
  const AttrValue* v = Find(key);
  if (v == nullptr) return fallback;
  if (v->kind() == AttrValue::Kind::kInt || v->kind() == AttrValue::Kind::kBool) {
    return v->as_int();
  }
  if (v->kind() == AttrValue::Kind::kFloat) return static_cast<int64_t>(v->as_float());
  return fallback;
}

double Attrs::GetFloat(std::string_view key, double fallback) const {
  const AttrValue* v = Find(key);
  if (v == nullptr || v->is_null() || v->kind() == AttrValue::Kind::kString ||
      v->kind() == AttrValue::Kind::kArray) {
    return fallback;
  }
  return v->as_float();
}

std::string_view Attrs::GetString(std::string_view key, std::string_view fallback) const {
  const AttrValue* v = Find(key);
  if (v == nullptr || v->kind() != AttrValue::Kind::kString) return fallback;
  return v->as_string();
}

DataType Attrs::GetDType(std::string_view key) const {
  auto parsed = DataType::Parse(GetString(key));
  return parsed.value_or(DataType::Void());
}

std::optional<std::vector<int64_t>> Attrs::GetInts(std::string_view key) const {
  const AttrValue* v = Find(key);
  if (v == nullptr) return std::nullopt;
  return v->AsInts();
}

const Attrs* InternAttrs(const AttrsSchema* schema, std::span<const AttrEntry> entries) {
  AttrStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  Attrs probe(schema, entries);
  auto it = s.sets.find(&probe);
  if (it != s.sets.end()) return *it;
  std::vector<AttrEntry> copy(entries.begin(), entries.end());
  for (AttrEntry& e : copy) e.key = InternStringLocked(s, e.key);
  std::span<const AttrEntry> stored;
  if (!copy.empty()) {
    auto* mem = static_cast<AttrEntry*>(
        s.arena.Allocate(sizeof(AttrEntry) * copy.size(), alignof(AttrEntry)));
    for (size_t i = 0; i < copy.size(); ++i) new (mem + i) AttrEntry(copy[i]);
    stored = {mem, copy.size()};
  }
  const Attrs* a = s.arena.New<Attrs>(schema, stored);
  s.sets.insert(a);
  return a;
}

const Attrs* EmptyAttrs() {
  static const Attrs* empty = InternAttrs(nullptr, {});
  return empty;
}

const Attrs* DefaultAttrs(const AttrsSchema* schema) {
  std::vector<AttrEntry> entries;
  for (const AttrField& f : schema->fields) entries.push_back({f.name, f.default_value});
  return InternAttrs(schema, entries);
}

const Attrs* WithAttr(const Attrs* attrs, std::string_view key, AttrValue value) {
  std::vector<AttrEntry> entries(attrs->entries().begin(), attrs->entries().end());
  bool found = false;
  for (AttrEntry& e : entries) {
    if (e.key == key) {
      e.value = value;
      found = true;
    }
  }
  if (!found) entries.push_back({key, value});
  return InternAttrs(attrs->schema(), entries);
}

const Attrs* WithField(const Attrs* attrs, std::string_view key, AttrValue value) {
  return WithAttr(attrs, key, value);
}

std::string FormatDouble(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

namespace {
std::string EscapeString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out.push_back(c);
    }
  }
  return out + "\"";
}
}  // namespace

std::string AttrValueToString(const AttrValue& v, AttrType type) {
  switch (v.kind()) {
    case AttrValue::Kind::kNull: return "None";
    case AttrValue::Kind::kInt:
      if (type == AttrType::kBool) return v.as_int() ? "True" : "False";
      if (type == AttrType::kDouble) return FormatDouble(double(v.as_int())) + "f";
      if (v.int_bits() == 64) return fmt::format("{}i64", v.as_int());
      if (v.int_bits() == 16) return fmt::format("{}i16", v.as_int());
      return fmt::format("{}", v.as_int());
    case AttrValue::Kind::kBool: return v.as_bool() ? "True" : "False";
    case AttrValue::Kind::kFloat: {
      double d = v.as_float();
      if (std::isinf(d)) return d > 0 ? "inff" : "-inff";
      return FormatDouble(d) + "f";
    }
    case AttrValue::Kind::kString: return EscapeString(v.as_string());
    case AttrValue::Kind::kArray: {
      AttrType elem = AttrType::kAny;
      if (type == AttrType::kIntsArray) elem = AttrType::kInts;
      std::string out = "[";
      bool first = true;
      for (const AttrValue& e : v.as_array()) {
        if (!first) out += ", ";
        first = false;
        out += AttrValueToString(e, elem);
      }
      return out + "]";
    }
    case AttrValue::Kind::kVirtualDevice: return VirtualDeviceRepr(*v.as_virtual_device());
  }
  return "None";
}

}  // namespace carve
