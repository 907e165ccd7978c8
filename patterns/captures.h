// Which captures a pattern binds on every successful match. A capture inside
// one side of an alternation (or an optional call), or on a dominator's path
// (which may match no node at all), is bound only on some matches; a rule's
// replacement may only use captures bound on all of them, so the DSL rejects
// the others when the file is loaded rather than failing at rewrite time.
#pragma once

#include <string>

#include "absl/container/flat_hash_set.h"
#include "patterns/compile.h"

namespace carve {

absl::flat_hash_set<std::string> CapturesBoundOnEveryMatch(const CompiledPattern& pattern);

}  // namespace carve
