// Internal to the Relay printer: a store of append-only text documents that
// may splice each other by reference, rendered once at the end.
//
// TVM composes its output from `Doc` values and indents a nested body by
// rewriting every newline inside it, which is quadratic in the nesting depth.
// Here a document is a plain byte string with three in-band markers:
//   '\n'                      newline followed by the current indentation;
//   kRef + 4 bytes (LE id)    the referenced document, rendered in place;
//   kIndent / kDedent         indentation += 2 / -= 2 until the matching mark.
// Function and if bodies are referenced, never copied, so each byte is written
// once into a document and once into the output, whatever the nesting.
// Printed text never contains the marker bytes: names are sanitised and
// string literals escape control characters.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace carve::print_internal {

using DocId = uint32_t;

class DocStore {
 public:
  static constexpr char kRef = '\x01';
  static constexpr char kIndent = '\x02';
  static constexpr char kDedent = '\x03';

  // Frozen documents (ids with this bit) are written once, whole, into a
  // bump region: nested bodies and fn literals, which a partitioned function
  // holds by the ten thousand until their lines are rendered, then take no
  // allocation each and lie end to end for the renderer.
  static constexpr DocId kFrozen = DocId{1} << 31;

  // A new empty document.
  DocId New();
  // A new frozen document holding `text`.
  // Invariant: a frozen document is rendered at most once by RenderAndRelease
  // (through the one reference to it); once every one is, the region and the
  // ids are reused, so a reference rendered again afterwards would read
  // another document's bytes, or none. Render and RenderRange do not count.
  // Debug builds check the ids and the count.
  DocId Freeze(std::string_view text);
  // Gives `doc` (not frozen, referred to by nothing) back for New() to reuse.
  void Release(DocId doc);
  // The bytes of `id` (not frozen); the reference is invalidated by New().
  std::string& operator[](DocId id) { return docs_[id]; }
  const std::string& operator[](DocId id) const { return docs_[id]; }
  // Appends a reference to `target` to `doc`.
  void AppendRef(DocId doc, DocId target);
  // Appends `root` with every reference expanded and every newline indented,
  // without recursion (a stack of open documents).
  void Render(DocId root, std::string* out) const;
  // Appends the bytes of `doc` from offset `from` to its current end, every
  // reference expanded; `*indent` is the indentation in effect before, and
  // is left as it is after (so a document can be rendered in pieces).
  void RenderRange(DocId doc, size_t from, size_t* indent, std::string* out) const;
  // As RenderRange from 0, then empties `doc` and releases every document it
  // referred to, directly or not: for text whose documents are referred to
  // once only, as the printer's are, so that nothing refers to them any more.
  void RenderAndRelease(DocId doc, size_t* indent, std::string* out);
  // The number of documents ever made (one more than the largest id).
  DocId size() const { return static_cast<DocId>(docs_.size()); }
  // Drops the documents from `first` on (their memory goes back to the
  // allocator for the next ones), and every frozen document; nothing may
  // refer to them any more.
  void Truncate(DocId first);
  // Sum of the sizes of the documents still to render (frozen ones that
  // RenderAndRelease rendered, or Truncate dropped, no longer count): a lower
  // bound of the rendered size.
  size_t TotalBytes() const;

 private:
  struct OpenDoc {
    const char* pos;
    const char* end;
    DocId id;
  };
  // Renders as RenderRange; with `note_refs`, the ids of the documents
  // rendered through references are added to rendered_.
  void RenderImpl(DocId doc, size_t from, size_t* indent, std::string* out, bool note_refs) const;

  // The bytes of any document, frozen or not.
  std::string_view View(DocId id) const {
    if ((id & kFrozen) == 0) return docs_[id];
    assert((id & ~kFrozen) < frozen_.size() && "a frozen document rendered after its reset");
    const FrozenDoc& doc = frozen_[id & ~kFrozen];
    return std::string_view(doc.data, doc.size);
  }
  // Forgets every frozen document; their region is written again from its
  // start (its blocks are kept).
  void ResetFrozen();

  // Released documents keep their capacity, and New() hands them out again
  // first: a printer that releases what it has rendered keeps reusing a few
  // warm buffers instead of touching fresh memory for every document.
  std::vector<std::string> docs_;
  std::vector<DocId> free_;
  struct FrozenDoc {
    const char* data;
    size_t size;
  };
  std::vector<FrozenDoc> frozen_;
  size_t live_frozen_ = 0;  // not yet rendered by RenderAndRelease
  size_t frozen_bytes_ = 0;  // of the live frozen documents
  std::vector<std::unique_ptr<char[]>> blocks_;  // the bump region
  std::vector<size_t> block_sizes_;
  size_t block_ = 0;  // the block being filled
  char* pos_ = nullptr;
  char* end_ = nullptr;
  // RenderImpl's scratch: its open documents, and the referenced ones.
  mutable std::vector<OpenDoc> stack_;
  mutable std::vector<DocId> rendered_;
};

// Appends a reference to `target` to the bytes of a document.
void AppendRef(std::string* doc, DocId target);
// Appends the marker that indents (or dedents) a body in a document.
inline void AppendIndent(std::string* doc) { doc->push_back(DocStore::kIndent); }
inline void AppendDedent(std::string* doc) { doc->push_back(DocStore::kDedent); }

}  // namespace carve::print_internal
