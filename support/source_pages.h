// Dropping the pages of a mapped source text that a reader is done with.
#pragma once

#include <string_view>

namespace carve {

// When `bytes` lies in a source text mapped from a file (SourceText::FromFile)
// and still mapped, drops the whole pages inside it from the process's
// resident set: for a reader done with a large part of a text (the
// `#[metadata]` section's tensors, once decoded) while views into the rest
// stay in use. Always safe: the mapping is private, read-only and never
// written, so its pages are the file's and a later read of those bytes
// faults them back in from the page cache. No-op for any other bytes (an
// owned text's heap pages hold the only copy).
void ReleaseSourcePages(std::string_view bytes);

}  // namespace carve
