// Builds the op registry from ir/ops.def and ir/attrs_schemas.def.
#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/attrs_objects.h"
#include "ir/op.h"
#include "ir/op_rules.h"
#include "ir/type_relations.h"
#include "support/edit_distance.h"

namespace carve {
namespace {

struct Registry {
  std::vector<std::unique_ptr<AttrsSchema>> schemas;
  absl::flat_hash_map<std::string_view, const AttrsSchema*> schema_by_key;
  std::vector<std::unique_ptr<OpInfo>> ops;
  absl::flat_hash_map<std::string_view, const OpInfo*> op_by_name;
  std::vector<const OpInfo*> sorted;
  // "relay.attrs.X.field" of the fields TVM holds as Bool / String objects.
  absl::flat_hash_set<std::string> object_fields;
};

AttrValue I(int64_t v) { return AttrValue::Int(v); }
AttrValue B(bool v) { return AttrValue::Bool(v); }
AttrValue F(double v) { return AttrValue::Float(v); }
AttrValue S(std::string_view s) { return AttrValue::Str(s); }
template <typename... T>
AttrValue INTS(T... v) {
  return AttrValue::Ints({static_cast<int64_t>(v)...});
}
template <typename... T>
AttrValue FLOATS(T... v) {
  return AttrValue::Array({AttrValue::Float(static_cast<double>(v))...});
}
const AttrValue NUL{};

void RegisterSchemas(Registry& r) {
  AttrsSchema* current = nullptr;
  auto open = [&](std::string_view key) {
    r.schemas.push_back(std::make_unique<AttrsSchema>());
    current = r.schemas.back().get();
    current->type_key = key;
    r.schema_by_key[key] = current;
  };
  auto field = [&](std::string_view name, AttrType type, bool required, AttrValue def) {
    current->fields.push_back(AttrField{name, type, required, def});
  };
#define CARVE_ATTRS(Name) open("relay.attrs." #Name);
#define CARVE_FIELD(name, type, def) field(#name, AttrType::type, false, def);
#define CARVE_REQUIRED(name, type) field(#name, AttrType::type, true, AttrValue());
#define CARVE_OBJECT_FIELD(Name, name) r.object_fields.insert("relay.attrs." #Name "." #name);
#include "ir/attrs_schemas.def"
#undef CARVE_ATTRS
#undef CARVE_FIELD
#undef CARVE_REQUIRED
#undef CARVE_OBJECT_FIELD
}

void RegisterOps(Registry& r) {
  auto add = [&](std::string_view name, int num_inputs, std::string_view args,
                 std::string_view attrs_key, TypeRelation rel, OpPattern pattern, int level,
                 uint32_t flags) {
    auto info = std::make_unique<OpInfo>();
    info->name = name;
    info->num_inputs = num_inputs;
    if (!args.empty()) {
      size_t start = 0;
      while (start <= args.size()) {
        size_t comma = args.find(',', start);
        if (comma == std::string_view::npos) comma = args.size();
        info->arg_names.push_back(args.substr(start, comma - start));
        start = comma + 1;
      }
    }
    info->attrs_type_key = attrs_key;
    if (!attrs_key.empty()) {
      auto it = r.schema_by_key.find(attrs_key);
      info->attrs = it == r.schema_by_key.end() ? nullptr : it->second;
    }
    info->attrs_type_registered = (flags & kOpAnnotation) == 0;
    info->type_rel = rel;
    info->pattern = pattern;
    info->support_level = level;
    info->flags = flags;
    r.op_by_name[info->name] = info.get();
    r.ops.push_back(std::move(info));
  };
  // Runs after the op's CARVE_OP line (the list ends ops.def).
  auto no_attrs_type = [&](std::string_view name) {
    for (auto& op : r.ops) {
      if (op->name == name) op->attrs_type_registered = false;
    }
  };
#define CARVE_OP(name, n, args, key, rel_fn, pat, level, flags) \
  add(name, n, args, key, &rel::rel_fn, OpPattern::pat, level, flags);
#define CARVE_OP_NO_ATTRS_TYPE(name) no_attrs_type(name);
#include "ir/ops.def"
#undef CARVE_OP
#undef CARVE_OP_NO_ATTRS_TYPE
  for (const auto& op : r.ops) r.sorted.push_back(op.get());
  std::sort(r.sorted.begin(), r.sorted.end(),
            [](const OpInfo* a, const OpInfo* b) { return a->name < b->name; });
}

const Registry& Get() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    RegisterSchemas(*r);
    RegisterOps(*r);
    return r;
  }();
  return *registry;
}

}  // namespace

const OpInfo* FindOp(std::string_view name) {
  const Registry& r = Get();
  auto it = r.op_by_name.find(name);
  return it == r.op_by_name.end() ? nullptr : it->second;
}

const OpInfo* NearestOp(std::string_view name) {
  const OpInfo* best = nullptr;
  size_t best_distance = 0;
  size_t best_full = 0;
  // An answer further than this is no answer.
  const size_t limit = std::max<size_t>(3, name.size() / 3);
  for (const OpInfo* op : Get().sorted) {
    // Distances past `cap` cannot win or tie, so they are only bounded, not
    // computed (a parser meeting many unknown names, as a fuzzer does, spent
    // most of its time here).
    const size_t cap = best == nullptr ? limit : best_distance;
    size_t full = EditDistance(name, op->name, cap);
    size_t d = full;
    // Also treat a missing or extra namespace ("conv2d" vs "nn.conv2d") as close.
    size_t dot = op->name.rfind('.');
    if (dot != std::string_view::npos && cap > 0) {
      d = std::min(d, EditDistance(name, op->name.substr(dot + 1), cap - 1) + 1);
    }
    if (d > cap) continue;
    // Ties go to the nearer full name: "conv2d" means nn.conv2d, not
    // contrib.ethosu.conv2d.
    if (full > cap) full = EditDistance(name, op->name);
    if (best == nullptr || d < best_distance || (d == best_distance && full < best_full)) {
      best = op;
      best_distance = d;
      best_full = full;
    }
  }
  return best;
}

std::span<const OpInfo* const> AllOps() { return Get().sorted; }

const AttrsSchema* FindAttrsSchema(std::string_view type_key) {
  const Registry& r = Get();
  auto it = r.schema_by_key.find(type_key);
  return it == r.schema_by_key.end() ? nullptr : it->second;
}

bool IsTvmObjectField(std::string_view type_key, std::string_view field) {
  return Get().object_fields.contains(fmt::format("{}.{}", type_key, field));
}

bool IsTvmObjectType(AttrType type) {
  switch (type) {
    case AttrType::kInts:
    case AttrType::kIntsArray:
    case AttrType::kDoubles:
    case AttrType::kInteger:
    case AttrType::kIntOrInts:
    case AttrType::kAny:
      return true;
    default:
      return false;
  }
}

std::string UnknownOpMessage(std::string_view name) {
  const OpInfo* near = NearestOp(name);
  if (near == nullptr) return fmt::format("unknown operator '{}'", name);
  return fmt::format("unknown operator '{}' (did you mean '{}'?)", name, near->name);
}

}  // namespace carve
