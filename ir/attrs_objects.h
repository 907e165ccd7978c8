// Which attrs fields TVM holds as objects (ObjectRef members) although their
// carve AttrType is a plain value: TVM's `Bool` and `String` members, listed
// in ir/attrs_schemas.def (CARVE_OBJECT_FIELD). TVM's JSON node graph (the
// `#[metadata]` section) writes such a field as a reference to an IntImm(bool)
// or runtime.String node, where a `bool` / `std::string` member is written
// inline. Only the metadata reader and writer need this, hence its own header.
#pragma once

#include <string_view>

#include "ir/attrs.h"

namespace carve {

// True when field `field` of the attrs type `type_key` (e.g.
// "relay.attrs.ScanopAttrs", "exclusive") is a TVM Bool or String object.
bool IsTvmObjectField(std::string_view type_key, std::string_view field);

// True for the field types TVM always holds as ObjectRefs (arrays, Integer /
// IndexExpr, anything): serialised as node references, and nullable.
bool IsTvmObjectType(AttrType type);

}  // namespace carve
