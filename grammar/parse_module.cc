// The module level and the public entry points:
//   module := VERSION (definition* | expr) METADATA? EOF
//   definition := 'def' GLOBAL funcsig '{' expr '}' | type_def (parse_adt.cc)
//
// The metadata section comes last in the file but `meta[...]` references
// come before it, so the section is located by a byte search for
// `#[metadata]` and parsed when first needed (at a reference or at the
// section itself; a module with neither never scans for it). The lexer is
// the judge of where the section really starts (the marker could sit inside
// a comment or a string); when it disagrees with the search, the text is
// parsed again with its answer.
#include <iostream>
#include <sstream>

#include "fmt/format.h"
#include "grammar/parser_impl.h"
#include "support/source.h"
#include "support/status_macros.h"

namespace carve {
namespace parser_internal {
namespace {

constexpr std::string_view kVersion = "0.0.5";

// An error when `text` is binary data (a NUL byte, or a first byte that is
// a control character no text starts with), which no Relay file holds.
// Protobuf files such as ONNX models start with a field tag (0x08 for an
// ONNX model's ir_version), so the message points at `carve import`.
absl::Status CheckNotBinary(std::string_view source_name, std::string_view text) {
  const size_t nul = text.find('\0');
  const bool bad_start = !text.empty() && static_cast<unsigned char>(text[0]) < 0x20 &&
                         text[0] != '\t' && text[0] != '\n' && text[0] != '\r';
  if (nul == std::string_view::npos && !bad_start) return absl::OkStatus();
  const size_t at = bad_start ? 0 : nul;
  std::string message =
      fmt::format("'{}' is not Relay text but binary data (byte {} is 0x{:02x})", source_name,
                  at, static_cast<unsigned char>(text[at]));
  if (source_name.ends_with(".onnx") || text[0] == '\x08') {
    message += fmt::format(
        "; an ONNX model is converted with `carve import {} -o model.relay` (in Python, "
        "carve.relay.frontend.from_onnx; the REPL's `load` reads .onnx files directly)",
        source_name);
  }
  return absl::InvalidArgumentError(message);
}

MetadataState LoadMetadata(std::string_view text, uint32_t offset) {
  MetadataState state;
  state.searched = true;
  state.offset = offset;
  if (offset == MetadataState::kNone) return state;
  size_t close = text.find(']', offset);
  auto contents = ParseMetadata(close == std::string_view::npos ? "" : text.substr(close + 1));
  if (contents.ok()) {
    state.ok = true;
    state.contents = *std::move(contents);
  } else {
    state.error = std::string(contents.status().message());
  }
  return state;
}

uint32_t FindMetadataMarker(std::string_view text) {
  size_t at = text.find("#[metadata]");
  return at == std::string_view::npos ? MetadataState::kNone : static_cast<uint32_t>(at);
}

// Whether the parse must run again: it used the section where the byte
// search found it, and the lexer found it somewhere else (e.g. the first
// marker was inside a comment).
bool NeedsRetry(const Parser& parser, const MetadataState& assumed) {
  return assumed.searched && parser.seen_metadata_offset() != assumed.offset &&
         !parser.stopped();
}

absl::StatusOr<uint32_t> RegisterSource(std::string_view source_name, SourceText text) {
  if (size_t size = text.view().size(); size >= MetadataState::kNone) {
    return absl::InvalidArgumentError(
        fmt::format("{}: file too large ({} bytes; the limit is 4 GiB)", source_name, size));
  }
  return SourceManager::Global().Add(std::string(source_name), std::move(text));
}

}  // namespace

void Parser::ParseModuleText(bool require_version) {
  ParseVersion(require_version);
  if (At(TokenKind::kDef) || At(TokenKind::kType) || At(TokenKind::kExtern)) {
    ParseDefinitions();
  } else if (!At(TokenKind::kEof) && !At(TokenKind::kMetadata)) {
    ParseBareExpression();
  }
  ParseMetadataToken();
  CheckUndefinedGlobals();
  CheckUndefinedTypes();
}

const Expr* Parser::ParseStandaloneExpr() {
  expr_mode_ = true;
  ParseVersion(/*required=*/false);
  const Expr* e = ParseExpr(ExprContext::kBlock);
  if (e != nullptr && !At(TokenKind::kEof) && !At(TokenKind::kMetadata)) {
    ErrorExpected("the end of the expression");
  }
  ParseMetadataToken();
  CheckUndefinedTypes();
  return diags_.has_errors() ? nullptr : e;
}

bool Parser::ParseVersion(bool required) {
  if (At(TokenKind::kVersion)) {
    const Token& t = Next();
    if (lex_.VersionText(t) == kVersion) return true;
    Error(SpanOf(t), fmt::format("unsupported text format version \"{}\" (carve reads \"{}\")",
                                 lex_.VersionText(t), kVersion));
    return false;
  }
  if (!required || At(TokenKind::kError)) return !required;
  Error(
      lex_.SpanAt(Peek().begin), "expected text format semantic version",
      {Note{lex_.SpanAt(0), fmt::format("add '#[version = \"{}\"]' as the first line", kVersion)}});
  return false;
}

void Parser::ParseDefinitions() {
  while (!At(TokenKind::kEof) && !At(TokenKind::kMetadata)) {
    if (At(TokenKind::kDef)) {
      ParseDefinition();
      continue;
    }
    if (At(TokenKind::kType) || At(TokenKind::kExtern)) {
      ParseTypeDefinition();
      continue;
    }
    ErrorExpected("'def', 'type' or the end of the file");
    Next();
    SynchronizeDefinition();
  }
}

void Parser::ParseDefinition() {
  TokenPos keyword = Next();
  ResetDefinitionState();
  if (!At(TokenKind::kGlobal)) {
    ErrorExpected("a global name such as '@main' after 'def'");
    SynchronizeDefinition();
    return;
  }
  const Token& name = Next();
  const std::string_view global = lex_.Name(name);
  const Span name_span = SpanOf(name);
  const GlobalVar* gv = module_.GetGlobalVar(global, name_span);
  auto [previous, first] = definitions_.try_emplace(gv->name(), name_span);
  if (!first) {
    Error(name_span, fmt::format("redefinition of '@{}'", global),
          {Note{previous->second, "previous definition is here"}});
  }
  PushScope();
  locals_.Reserve(ParamCountBound());
  Signature sig;
  const Function* fn = nullptr;
  if (ParseSignature(sig)) {
    if (!sig.shadows) def_params_ = sig.param_list;
    guess_ = 0;
    if (const Expr* body = ParseBlock("function body")) {
      fn = FinishFunction(sig, body, SpanFrom(keyword));
    }
  }
  def_params_ = {};
  type_vars_.clear();
  PopScope();
  if (fn != nullptr && first) module_.Add(gv, fn);
  if (fn == nullptr) SynchronizeDefinition();
}

void Parser::ParseBareExpression() {
  const Expr* body = ParseExpr(ExprContext::kBlock);
  if (body == nullptr) return;
  if (!At(TokenKind::kEof) && !At(TokenKind::kMetadata)) {
    ErrorExpected("the end of the file after the expression");
    return;
  }
  // TVM's `mod["main"].astext()` prints @main as a bare fn literal.
  const Function* main = DynCast<Function>(body);
  if (main == nullptr || !free_vars_.empty()) {
    main = b_.MakeFunction(free_vars_, body, nullptr, nullptr, {}, body->span());
  }
  module_.Add("main", main);
}

const MetadataState& Parser::Metadata() {
  if (!metadata_.searched) metadata_ = LoadMetadata(lex_.text(), FindMetadataMarker(lex_.text()));
  return metadata_;
}

void Parser::ParseMetadataToken() {
  if (!At(TokenKind::kMetadata)) return;
  const Token& t = Next();
  seen_metadata_offset_ = t.begin;
  const MetadataState& metadata = Metadata();
  if (metadata.offset == t.begin && !metadata.ok) {
    Error(Span{lex_.file_id(), t.begin, t.aux},
          fmt::format("invalid metadata section: {}", metadata.error));
  }
}

void Parser::CheckUndefinedGlobals() {
  for (const auto& [gv, span] : global_uses_) {
    if (module_.Lookup(gv) == nullptr) {
      Error(span, fmt::format("undefined global '@{}'", gv->name()));
    }
  }
}

}  // namespace parser_internal

using parser_internal::LoadMetadata;
using parser_internal::MetadataState;
using parser_internal::NeedsRetry;
using parser_internal::Parser;
using parser_internal::RegisterSource;

absl::StatusOr<Module> ParseModule(std::string_view source_name, std::string text,
                                   const ParseOptions& options) {
  return ParseModule(source_name, SourceText(std::move(text)), options);
}

absl::StatusOr<Module> ParseModule(std::string_view source_name, SourceText text,
                                   const ParseOptions& options) {
  CARVE_ASSIGN_OR_RETURN(uint32_t file, RegisterSource(source_name, std::move(text)));
  std::string_view view = SourceManager::Global().Get(file)->text();
  MetadataState metadata;  // searched for when first needed
  for (int attempt = 0;; ++attempt) {
    DiagnosticEngine diags;
    Module module;
    Parser parser(view, file, module, diags, metadata);
    parser.ParseModuleText(options.require_version);
    if (attempt == 0 && NeedsRetry(parser, metadata)) {
      metadata = LoadMetadata(view, parser.seen_metadata_offset());
      continue;
    }
    if (diags.has_errors()) {
      // A binary file (an ONNX model given where Relay text belongs is the
      // usual one) would be reported as an unexpected byte with its bytes
      // echoed as the source line: say what it is instead.
      CARVE_RETURN_IF_ERROR(parser_internal::CheckNotBinary(source_name, view));
    }
    CARVE_RETURN_IF_ERROR(diags.ToStatus());
    return module;
  }
}

absl::StatusOr<Module> ParseModuleFile(const std::string& path) {
  std::stringstream buffer;
  std::string name = path;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    name = "<stdin>";
  } else {
    // Not an ifstream: it opens a directory and reads it as an empty text
    // (then blamed for a missing version line).
    CARVE_ASSIGN_OR_RETURN(std::string text, SourceText::ReadFile(path));
    return ParseModule(name, std::move(text));
  }
  return ParseModule(name, std::move(buffer).str());
}

absl::StatusOr<const Expr*> ParseExpr(std::string_view source_name, std::string text,
                                      Module& module) {
  CARVE_ASSIGN_OR_RETURN(uint32_t file,
                         RegisterSource(source_name, SourceText(std::move(text))));
  std::string_view view = SourceManager::Global().Get(file)->text();
  MetadataState metadata;  // searched for when first needed
  for (int attempt = 0;; ++attempt) {
    DiagnosticEngine diags;
    Parser parser(view, file, module, diags, metadata);
    const Expr* e = parser.ParseStandaloneExpr();
    if (attempt == 0 && NeedsRetry(parser, metadata)) {
      metadata = LoadMetadata(view, parser.seen_metadata_offset());
      continue;
    }
    CARVE_RETURN_IF_ERROR(diags.ToStatus());
    return e;
  }
}

}  // namespace carve
