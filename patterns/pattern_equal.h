// Structural equality of patterns, sharing included: two patterns are equal
// when there is a one-to-one correspondence of their nodes that preserves
// kinds, payloads (ops, names, attributes, types, predicates) and edges. So
// `add(c, c)` with one shared `c` differs from `add(c1, c2)`. Used by the DSL
// round-trip tests (print, re-parse, compare).
#pragma once

#include <string>

#include "patterns/pattern.h"

namespace carve {

// True when equal; otherwise `why` (optional) says where they first differ.
bool PatternEqual(const Pattern& a, const Pattern& b, std::string* why = nullptr);

}  // namespace carve
