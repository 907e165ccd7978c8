// Internal to the Relay printer: how the leaves of the text are spelled —
// numbers, string literals, attribute values and lists, inline scalar
// constants and identifiers — each appended to a caller's buffer (no
// temporaries on the per-node path). The rules are TVM v0.16's
// (relay_text_printer.cc, support/scalars.cc, support/str_escape.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/attrs.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace carve::print_internal {

// Decimal integer.
void AppendInt(std::string* out, int64_t value);

// A double as C++'s `ostream << double` writes it by default (`%g`, six
// significant digits: `0.5`, `1e-05`, `inf`).
void AppendDouble(std::string* out, double value);

// A double-quoted string with TVM's escapes: `\"`, `\\`, `\t`, `\r`, `\n`, and
// `\xHH` for every other byte outside printable ASCII.
void AppendStringLiteral(std::string* out, std::string_view text);

// Numbers the VirtualDevice objects a printer writes as
// `meta[VirtualDevice][i]` (TVM's meta table: by object, in first-use order).
class VirtualDeviceTable {
 public:
  virtual uint32_t Index(const VirtualDevice* device) = 0;

 protected:
  ~VirtualDeviceTable() = default;
};

// Appends `meta[VirtualDevice][i]`, or without a table TVM's repr
// (`VirtualDevice(device_type=1)`), which its printer writes when metadata is
// off.
void AppendVirtualDevice(std::string* out, const VirtualDevice* device, VirtualDeviceTable* table);

// An attribute value written for a field of type `type`: `None`, `1`, `3i64`,
// `True`, `0.5f`, `"NCHW"`, `[1, 1]`. C++-typed fields (`kInt`, `kBool`,
// `kDouble`) print as TVM's attribute visitor does (no width suffix, bools as
// `True`/`False`, doubles with `f`); object fields follow the IntImm/FloatImm
// rules (`3i64`, `2i16`).
void AppendAttrValue(std::string* out, const AttrValue& value, AttrType type = AttrType::kAny,
                     VirtualDeviceTable* devices = nullptr);

// Appends the `key=value` attributes of a call, each preceded by ", " unless
// `*first` (which is then cleared). For an op's own schema only fields that
// differ from their default are written (required fields always), in schema
// order; a call whose callee is not an op also gets `attrs_type_key="..."`;
// dictionary attributes are written as they are.
void AppendCallAttrs(std::string* out, const Call* call, bool* first,
                     VirtualDeviceTable* devices = nullptr);

// Appends function (dictionary) attributes the same way, in their order.
void AppendDictAttrs(std::string* out, const Attrs* attrs, bool* first,
                     VirtualDeviceTable* devices = nullptr);

// True for the rank-0 constants TVM prints inline: int16/32/64,
// float16/32/64 and bool. Every other constant goes to the metadata section.
bool IsSimpleScalar(const NDArray& data);

// An inline scalar: `42`, `-7i16`, `9000000000i64`, `2.5f`, `0.5f16`,
// `0.001f64`, `True`, `-inff`. Requires IsSimpleScalar(data).
void AppendScalar(std::string* out, const NDArray& data);

// `name` with every character carve's lexer cannot read in a name replaced
// by `_`. Kept: letters, digits, `_`, `/`, and `.` or `-` when not first and
// followed by a letter or `_`.
std::string SanitizeName(std::string_view name);

// TVM's name hint of a local variable: the sanitised name, with a `v` prefix
// when it is empty or does not start with a letter (`1` -> `v1`, `` -> `v`).
std::string VarNameHint(std::string_view name);

}  // namespace carve::print_internal
