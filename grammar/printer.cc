// Public entry points of the Relay printer: TVM's AsText (text_printer.cc)
// around RelayTextPrinter — the version header, definitions separated by a
// blank line (type definitions first, sorted by name), and the metadata
// section after one more newline.
#include "grammar/printer.h"

#include "grammar/metadata.h"
#include "grammar/printer_relay.h"

namespace carve {
namespace {

using print_internal::DocId;
using print_internal::DocStore;
using print_internal::RelayTextPrinter;

constexpr char kHeader[] = "#[version = \"0.0.5\"]\n";
// TVM's text, trailing spaces included.
constexpr char kMetadataOmitted[] =
    "/* For debugging purposes the metadata section has been omitted.\n"
    " * If you would like to see the full metadata section you can set the \n"
    " * option to `True` when invoking `astext`. \n"
    " */";

// Appends what follows the program: nothing, the `#[metadata]` section or the
// note that it was left out.
void AppendMetadataTrailer(RelayTextPrinter& printer, const PrintOptions& options,
                           std::span<const Expr* const> roots, std::string& out) {
  const MetadataTables& metadata = printer.metadata();
  if (!metadata.first_use.empty()) {
    out.push_back('\n');
    if (options.show_metadata) {
      printer.ComputeConstantDims(roots);
      out.append("#[metadata]\n");
      out.append(WriteMetadata(metadata));
    } else {
      out.append(kMetadataOmitted);
    }
  }
}

// Renders `root` and appends the metadata trailer.
std::string Finish(RelayTextPrinter& printer, DocId root, const PrintOptions& options,
                   std::span<const Expr* const> roots) {
  const DocStore& docs = printer.docs();
  std::string out;
  size_t bytes = docs.TotalBytes();
  out.reserve(bytes + bytes / 4);  // room for the indentation
  docs.Render(root, &out);
  AppendMetadataTrailer(printer, options, roots, out);
  return out;
}

// The module's definitions, as the roots of the constants' dim analysis.
std::vector<const Expr*> Roots(const Module& mod) {
  std::vector<const Expr*> roots;
  for (const auto& [global, fn] : mod.Functions()) roots.push_back(fn);
  return roots;
}

// TVM's meta form for compiler_begin/end attrs when asked for, or when the
// module's text used it; only with the metadata section (as TVM).
bool UseMetaAttrs(const Module& mod, const PrintOptions& options) {
  return (options.meta_attrs || mod.meta_compiler_attrs()) && options.show_metadata;
}

}  // namespace

std::string PrintModule(const Module& mod, const PrintOptions& options) {
  RelayTextPrinter printer(options.show_types, UseMetaAttrs(mod, options), options.show_metadata);
  DocStore& docs = printer.docs();
  DocId root = docs.New();
  if (options.header) docs[root].append(kHeader);
  bool first = true;
  for (const TypeData* data : mod.TypeDefinitions()) {  // first, as TVM prints them
    if (!first) docs[root].push_back('\n');
    first = false;
    docs[root].append(print_internal::TypeDataText(data));
    docs[root].push_back('\n');
  }
  for (const auto& [global, fn] : mod.Functions()) {
    DocId definition = printer.PrintDefinition(global, fn);
    if (!first) docs[root].push_back('\n');
    first = false;
    docs.AppendRef(root, definition);
    docs[root].push_back('\n');
  }
  return Finish(printer, root, options, Roots(mod));
}

void PrintModuleTo(const Module& mod, const PrintOptions& options,
                   const std::function<void(std::string_view)>& write, size_t chunk) {
  RelayTextPrinter printer(options.show_types, UseMetaAttrs(mod, options), options.show_metadata);
  std::string out;
  out.reserve(chunk + chunk / 4);
  auto flush = [&out, &write] {
    if (!out.empty()) write(out);
    out.clear();
  };
  printer.SetStream(&out, chunk, flush);
  // As PrintModule's root document, rendered as it goes.
  if (options.header) out.append(kHeader);
  bool first = true;
  for (const TypeData* data : mod.TypeDefinitions()) {
    if (!first) out.push_back('\n');
    first = false;
    out.append(print_internal::TypeDataText(data));
    out.push_back('\n');
  }
  for (const auto& [global, fn] : mod.Functions()) {
    if (!first) out.push_back('\n');  // before any of the definition is rendered
    first = false;
    // A definition's documents are referred to by its own documents only
    // (node memos are fresh for each definition): once rendered, they go, and
    // the next definition reuses their memory instead of touching new pages.
    DocId mark = printer.docs().size();
    DocId definition = printer.PrintDefinition(global, fn);
    printer.FinishDefinition(definition);
    printer.docs().Truncate(mark);
    out.push_back('\n');
    if (out.size() >= chunk) flush();
  }
  AppendMetadataTrailer(printer, options, Roots(mod), out);
  flush();
}

std::string PrintExpr(const Expr* expr, const PrintOptions& options) {
  RelayTextPrinter printer(options.show_types, options.meta_attrs && options.show_metadata,
                           options.show_metadata);
  DocStore& docs = printer.docs();
  DocId root = docs.New();
  if (options.header) docs[root].append(kHeader);
  DocId body = printer.PrintStandalone(expr);
  docs.AppendRef(root, body);
  return Finish(printer, root, options, {&expr, 1});
}

std::string PrintType(const Type* type) { return TypeToString(type); }

}  // namespace carve
