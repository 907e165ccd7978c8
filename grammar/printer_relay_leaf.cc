// The leaves of RelayTextPrinter: the text of one node once its children have
// been visited (TVM's VisitExpr_ for calls, tuples, projections, constants,
// ops and globals), variable naming and type comments. Nothing here recurses
// or pushes frames: children are printed through FinishPrint, which only
// inlines, reuses or binds an already visited node.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "fmt/format.h"
#include "grammar/printer_dim_identity.h"
#include "grammar/printer_relay.h"
#include "grammar/printer_text.h"
#include "ir/attrs_objects.h"
#include "ir/type.h"

namespace carve::print_internal {

char* WriteTemp(char* p, uint32_t n) {
  *p++ = '%';
  int length = 1;
  for (uint32_t rest = n; rest >= 10; rest /= 10) ++length;
  char* end = p + length;
  char* q = end;
  do {
    *--q = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  return end;
}

void AppendTemp(std::string* out, uint32_t n) {
  char buffer[16];
  out->append(buffer, size_t(WriteTemp(buffer, n) - buffer));
}

void RelayTextPrinter::VisitLeaf(const Expr* e, uint32_t node) {
  Text text;
  switch (e->kind()) {
    case ExprKind::kVar:
      AllocVar(Cast<Var>(e), node, /*free=*/true);  // sets the memo itself
      return;
    case ExprKind::kGlobalVar:
      text = GlobalText(Cast<GlobalVar>(e));
      break;
    case ExprKind::kConstant:
      text = ConstantText(Cast<Constant>(e));
      break;
    case ExprKind::kOp:
      text = ArenaText(Cast<OpExpr>(e)->name());
      break;
    case ExprKind::kConstructor:
      text = ArenaText(Cast<Constructor>(e)->name());
      break;
    case ExprKind::kCall:
      text = CallText(Cast<Call>(e), node);
      break;
    case ExprKind::kTuple:
      text = TupleText(Cast<Tuple>(e), node);
      break;
    case ExprKind::kTupleGetItem:
      text = ProjectionText(Cast<TupleGetItem>(e), node);
      break;
    case ExprKind::kRefCreate:
    case ExprKind::kRefRead:
    case ExprKind::kRefWrite:
      text = RefText(e, node);
      break;
    default:
      return;  // functions, ifs and lets have frames
  }
  LeafDone(node, text);
}

// Pushed so that the callee comes off the stack first, then the arguments in
// order (TVM pushes them reversed, then the op).
void RelayTextPrinter::PushChildren(const Expr* e, uint32_t node) {
  auto push = [&](const Expr* child, size_t k) {
    uint32_t slot = Child(node, k);
    if (!Visited(slot)) dataflow_.push_back({child, slot, false});
  };
  switch (e->kind()) {
    case ExprKind::kCall: {
      auto args = Cast<Call>(e)->args();
      for (size_t k = args.size(); k > 0; --k) push(args[k - 1], k);
      push(Cast<Call>(e)->callee(), 0);
      return;
    }
    case ExprKind::kTuple: {
      auto fields = Cast<Tuple>(e)->fields();
      for (size_t k = fields.size(); k > 0; --k) push(fields[k - 1], k - 1);
      return;
    }
    case ExprKind::kTupleGetItem:
      push(Cast<TupleGetItem>(e)->tuple(), 0);
      return;
    // ---- References: their operands in order, as TVM prints them ----
    case ExprKind::kRefCreate:
      push(Cast<RefCreate>(e)->value(), 0);
      return;
    case ExprKind::kRefRead:
      push(Cast<RefRead>(e)->ref(), 0);
      return;
    case ExprKind::kRefWrite:
      push(Cast<RefWrite>(e)->value(), 1);
      push(Cast<RefWrite>(e)->ref(), 0);
      return;
    default:
      return;
  }
}

// `callee(args, attrs) /* ty */`. The arguments are printed (and bound)
// before the callee, so a bound callee gets the later number.
Text RelayTextPrinter::CallText(const Call* call, uint32_t node) {
  scratch_.clear();
  auto args = call->args();
  for (size_t k = 0; k < args.size(); ++k) {
    scratch_.push_back(FinishPrint(args[k], Child(node, k + 1), false));
  }
  Text callee = FinishPrint(call->callee(), Child(node, 0), false);
  size_t start = arena_.size();
  AppendText(&arena_, callee);
  // A nullary constructor's call is its name alone (`Nil`), as TVM prints it.
  if (auto* ctor = DynCast<Constructor>(call->callee()); ctor != nullptr && ctor->inputs().empty()) {
    AppendTypeInfo(&arena_, call);
    return Text::Arena(start, arena_.size() - start);
  }
  arena_.push_back('(');
  bool first = true;
  for (const Text& arg : scratch_) {
    if (!first) arena_.append(", ");
    first = false;
    AppendText(&arena_, arg);
  }
  AppendAttrs(call, first);
  arena_.push_back(')');
  AppendTypeInfo(&arena_, call);
  return Text::Arena(start, arena_.size() - start);
}

// Attribute sets are interned and a graph holds few distinct ones, so each is
// formatted once (as `, k=v, ...`) and copied afterwards.
void RelayTextPrinter::AppendAttrs(const Call* call, bool no_args) {
  if (call->attrs() == nullptr || call->attrs()->empty()) return;
  if (meta_attrs_ && AppendMetaAttrs(call, no_args)) return;
  auto [it, inserted] = attr_texts_.try_emplace({call->attrs(), call->op() != nullptr});
  if (inserted) {
    bool first = false;
    AppendCallAttrs(&it->second, call, &first, Devices());
  }
  std::string_view text = it->second;
  if (no_args && text.starts_with(", ")) text.remove_prefix(2);
  arena_.append(text);
}

void RelayTextPrinter::NoteMetaKey(std::string_view key) { metadata_.first_use.emplace_back(key); }

uint32_t RelayTextPrinter::Index(const VirtualDevice* device) {
  std::vector<const VirtualDevice*>& devices = metadata_.virtual_devices;
  auto [it, inserted] = device_index_.try_emplace(device, uint32_t(devices.size()));
  if (inserted) {
    if (devices.empty()) NoteMetaKey("VirtualDevice");
    devices.push_back(device);
  }
  return it->second;
}

namespace {
// TVM AllocVar: ` {virtual_device=...}` after the name when constrained.
void AppendVarDevice(std::string* out, const Var* var, VirtualDeviceTable* table) {
  const VirtualDevice* device = var->virtual_device();
  if (device == nullptr || device->IsFullyUnconstrained()) return;
  out->append(" {virtual_device=");
  AppendVirtualDevice(out, device, table);
  out->push_back('}');
}
}  // namespace

// TVM PrintCallAttrs: a call whose op declares no attrs type (OpInfo::
// attrs_type_registered, e.g. annotation.compiler_begin, cumsum, vision.*)
// has attrs of another type than declared, which the text form cannot
// show inline, so GetMetaNode puts the whole object in the metadata section.
// One object per call (TVM's passes and Python wrappers make a new attrs
// object for every call), numbered when the call's text is built.
bool RelayTextPrinter::AppendMetaAttrs(const Call* call, bool no_args) {
  const AttrsSchema* schema = call->attrs()->schema();
  const OpInfo* op = call->op();
  if (op == nullptr || schema == nullptr || op->attrs_type_registered) return false;
  std::string key(schema->type_key);
  auto& objects = metadata_.attrs[key];
  auto [it, inserted] = meta_attrs_index_.try_emplace(call, uint32_t(objects.size()));
  if (inserted) {
    if (objects.empty()) NoteMetaKey(key);
    // Every field, as TVM's VisitAttrs visits them (defaults included).
    std::vector<MetaAttrsField> fields;
    for (const AttrField& field : schema->fields) {
      const AttrValue* value = call->attrs()->Find(field.name);
      fields.push_back({std::string(field.name), field.type,
                        IsTvmObjectField(schema->type_key, field.name),
                        value != nullptr ? *value : field.default_value});
    }
    objects.push_back(std::move(fields));
  }
  if (!no_args) arena_.append(", ");
  arena_.append("meta[");
  arena_.append(key);
  arena_.append("][");
  AppendInt(&arena_, it->second);
  arena_.push_back(']');
  return true;
}

// `(a, b)`, `(a,)`, `()`.
Text RelayTextPrinter::TupleText(const Tuple* tuple, uint32_t node) {
  scratch_.clear();
  auto fields = tuple->fields();
  for (size_t k = 0; k < fields.size(); ++k) {
    scratch_.push_back(FinishPrint(fields[k], Child(node, k), false));
  }
  size_t start = arena_.size();
  arena_.push_back('(');
  for (size_t i = 0; i < scratch_.size(); ++i) {
    if (i > 0) arena_.append(", ");
    AppendText(&arena_, scratch_[i]);
  }
  if (scratch_.size() == 1) arena_.push_back(',');
  arena_.push_back(')');
  AppendTypeInfo(&arena_, tuple);
  return Text::Arena(start, arena_.size() - start);
}

// `%t.1`.
Text RelayTextPrinter::ProjectionText(const TupleGetItem* item, uint32_t node) {
  Text tuple = FinishPrint(item->tuple(), Child(node, 0), false);
  size_t start = arena_.size();
  AppendText(&arena_, tuple);
  arena_.push_back('.');
  AppendInt(&arena_, item->index());
  AppendTypeInfo(&arena_, item);
  return Text::Arena(start, arena_.size() - start);
}

void RelayTextPrinter::ComputeConstantDims(std::span<const Expr* const> roots) {
  if (meta_constants_.empty()) return;
  DimIdentity identity;
  for (const Expr* root : roots) identity.Analyse(root);
  metadata_.constant_dims.clear();
  for (const Constant* constant : meta_constants_) {
    metadata_.constant_dims.push_back(identity.ConstantDims(constant));
  }
}

// An inline scalar, or `meta[relay.Constant][i]` numbered by first visit.
Text RelayTextPrinter::ConstantText(const Constant* constant) {
  size_t start = arena_.size();
  if (IsSimpleScalar(constant->data())) {
    AppendScalar(&arena_, constant->data());
  } else {
    std::vector<NDArray>& constants = metadata_.constants;
    auto [it, inserted] = meta_index_.try_emplace(constant, constants.size());
    if (inserted) {
      if (constants.empty()) NoteMetaKey("relay.Constant");
      constants.push_back(constant->data());
      meta_constants_.push_back(constant);
    }
    arena_.append("meta[relay.Constant][");
    AppendInt(&arena_, it->second);
    arena_.push_back(']');
  }
  AppendTypeInfo(&arena_, constant);
  return Text::Arena(start, arena_.size() - start);
}

Text RelayTextPrinter::ArenaText(std::string_view s) {
  size_t start = arena_.size();
  arena_.append(s);
  return Text::Arena(start, s.size());
}

Text RelayTextPrinter::GlobalText(const GlobalVar* global) {
  size_t start = arena_.size();
  arena_.push_back('@');
  arena_.append(SanitizeName(global->name()));
  return Text::Arena(start, arena_.size() - start);
}

// The name becomes the node's memo (what references print).
Text RelayTextPrinter::NameVar(const Var* var, uint32_t node) {
  size_t start = arena_.size();
  arena_.push_back('%');
  AppendUniqueName(var->name());
  Text name = Text::Arena(start, arena_.size() - start);
  // A Var bound a second time gets a new name (TVM would print
  // `%x-malformed-ir`); later references use it.
  NodeState& state = nodes_[node];
  state.memo = name;
  state.flags |= kVisited;
  return name;
}

void RelayTextPrinter::AppendDecl(std::string* out, const Var* var, Text name) {
  AppendText(out, name);
  AppendVarDevice(out, var, Devices());
  if (var->annotation() != nullptr) {
    out->append(": ");
    AppendType(out, var->annotation());
  }
  AppendTypeInfo(out, var);
}

Text RelayTextPrinter::AllocVar(const Var* var, uint32_t node, bool free) {
  Text name = NameVar(var, node);
  size_t start = name.index;
  // The declaration extends the name in the arena.
  AppendVarDevice(&arena_, var, Devices());
  if (var->annotation() != nullptr) {
    arena_.append(": ");
    AppendType(&arena_, var->annotation());
  }
  AppendTypeInfo(&arena_, var);
  Text decl = Text::Arena(start, arena_.size() - start);
  if (free) {
    nodes_[node].flags |= kFreeVar;
    free_var_decls_[var] = decl;
  }
  return decl;
}

namespace {

// True when VarNameHint(name) is `name` itself: a letter, then letters,
// digits, `_` and `/` (the names of almost every variable).
bool IsPlainHint(std::string_view name) {
  if (name.empty()) return false;
  char c0 = name[0];
  if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z'))) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '/';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

// TVM GetUniqueName of the variable's name hint, appended to the arena: `x`,
// then `x1`, `x2`, ... skipping names already taken.
void RelayTextPrinter::AppendUniqueName(std::string_view name) {
  if (IsPlainHint(name)) {
    names_.AppendUnique(name, &arena_);
  } else {
    names_.AppendUnique(VarNameHint(name), &arena_);
  }
}

void RelayTextPrinter::AppendFunctionAttrs(std::string* out, const Attrs* attrs, bool first) {
  if (attrs == nullptr || attrs->entries().empty()) return;
  auto [it, inserted] = dict_texts_.try_emplace(attrs);
  if (inserted) {
    bool no_separator = false;
    AppendDictAttrs(&it->second, attrs, &no_separator, Devices());
  }
  std::string_view text = it->second;
  if (first && text.starts_with(", ")) text.remove_prefix(2);
  out->append(text);
}

void RelayTextPrinter::AppendTypeInfo(std::string* out, const Expr* e) {
  if (!show_types_ || e->checked_type() == nullptr) return;
  out->append(" /* ty=");
  AppendType(out, e->checked_type());
  out->append(" */");
}

// Types are interned, so one string per distinct type. Kept apart from the
// arena: a type is often first met while a node's text is being written there.
void RelayTextPrinter::AppendType(std::string* out, const Type* type) {
  const TypeText* known = type_recent_.Find(type);
  if (known == nullptr) {
    auto [it, inserted] = type_index_.try_emplace(type);
    if (inserted) {
      std::string text = TypeToString(type);
      it->second =
          TypeText{static_cast<uint32_t>(type_text_.size()), static_cast<uint32_t>(text.size())};
      type_text_.append(text);
    }
    type_recent_.Put(type, it->second);
    known = &it->second;
  }
  out->append(type_text_.data() + known->offset, known->size);
}

void RelayTextPrinter::AppendText(std::string* out, Text text) {
  switch (text.kind) {
    case Text::kEmpty:
      return;
    case Text::kArena:
      // Appending a range of the arena to the arena itself: reserve first so
      // that the source stays where it is.
      if (out == &arena_) out->reserve(out->size() + text.size);
      out->append(arena_.data() + text.index, text.size);
      return;
    case Text::kDoc:
      AppendRef(out, text.index);
      return;
    case Text::kTemp:
      AppendTemp(out, text.index);
      return;
  }
}

}  // namespace carve::print_internal
