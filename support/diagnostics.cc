#include "support/diagnostics.h"

#include <cstring>

#include "absl/strings/cord.h"
#include "fmt/format.h"
#include "support/diagnostics_excerpt.h"
#include "support/printable.h"

namespace carve {
namespace {

constexpr char kPayloadUrl[] = "carve.dev/diagnostics";

// Payload encoding: a sequence of records, each
//   kind(1 byte: 'E','W','N' for a diagnostic, 'n' for a note of the previous)
//   file, begin, end (3 x uint32), message length (uint32), message bytes.
void PutU32(std::string& out, uint32_t v) {
  char buf[4];
  std::memcpy(buf, &v, 4);
  out.append(buf, 4);
}

bool GetU32(std::string_view& in, uint32_t& v) {
  if (in.size() < 4) return false;
  std::memcpy(&v, in.data(), 4);
  in.remove_prefix(4);
  return true;
}

void PutRecord(std::string& out, char kind, Span span, const std::string& msg) {
  out.push_back(kind);
  PutU32(out, span.file);
  PutU32(out, span.begin);
  PutU32(out, span.end);
  PutU32(out, static_cast<uint32_t>(msg.size()));
  out.append(msg);
}

char SeverityCode(Severity s) {
  switch (s) {
    case Severity::kError: return 'E';
    case Severity::kWarning: return 'W';
    case Severity::kNote: return 'N';
  }
  return 'E';
}

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}

void RenderOne(std::string& out, Severity severity, Span span,
               const std::string& message, const std::string& fallback_file) {
  // Messages quote the user's text (names, values): raw control bytes in it
  // would reach the terminal (support/printable.h).
  const std::string shown = EscapeNonPrintable(message, /*keep_line_breaks=*/true);
  const SourceFile* file = SourceManager::Global().Get(span.file);
  if (file == nullptr) {
    out += fmt::format("{}: {}: {}\n", EscapeNonPrintable(fallback_file), SeverityName(severity),
                       shown);
    return;
  }
  LineCol lc = file->Resolve(span.begin);
  out += fmt::format("{}:{}:{}: {}: {}\n", EscapeNonPrintable(file->name()), lc.line, lc.column,
                     SeverityName(severity), shown);
  // Long lines (TVM prints whole functions on one line) are shown as a
  // window around the column; see support/diagnostics_excerpt.h.
  SourceExcerpt ex = MakeSourceExcerpt(file->Line(lc.line), lc.column);
  out += fmt::format("  {}\n  {}\n", ex.text, ex.caret);
}

}  // namespace

absl::Status DiagnosticsToStatus(const std::vector<Diagnostic>& diags,
                                 absl::StatusCode code) {
  if (diags.empty()) return absl::OkStatus();
  std::string payload;
  for (const Diagnostic& d : diags) {
    PutRecord(payload, SeverityCode(d.severity), d.span, d.message);
    for (const Note& n : d.notes) PutRecord(payload, 'n', n.span, n.message);
  }
  absl::Status status(code, diags.front().message);
  status.SetPayload(kPayloadUrl, absl::Cord(payload));
  return status;
}

absl::Status SpanError(Span span, std::string message, absl::StatusCode code) {
  return DiagnosticsToStatus({Diagnostic{Severity::kError, span, std::move(message), {}}},
                             code);
}

absl::Status SpanError(Span span, std::string message, Note note,
                       absl::StatusCode code) {
  return DiagnosticsToStatus(
      {Diagnostic{Severity::kError, span, std::move(message), {std::move(note)}}}, code);
}

std::vector<Diagnostic> StatusToDiagnostics(const absl::Status& status) {
  std::vector<Diagnostic> diags;
  if (status.ok()) return diags;
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload.has_value()) {
    diags.push_back(Diagnostic{Severity::kError, Span{}, std::string(status.message()), {}});
    return diags;
  }
  std::string flat(*payload);
  std::string_view in(flat);
  while (!in.empty()) {
    char kind = in.front();
    in.remove_prefix(1);
    Span span;
    uint32_t len = 0;
    if (!GetU32(in, span.file) || !GetU32(in, span.begin) || !GetU32(in, span.end) ||
        !GetU32(in, len) || in.size() < len) {
      break;
    }
    std::string msg(in.substr(0, len));
    in.remove_prefix(len);
    if (kind == 'n' && !diags.empty()) {
      diags.back().notes.push_back(Note{span, std::move(msg)});
      continue;
    }
    Severity sev = kind == 'W' ? Severity::kWarning
                   : kind == 'N' ? Severity::kNote : Severity::kError;
    diags.push_back(Diagnostic{sev, span, std::move(msg), {}});
  }
  if (diags.empty()) {
    diags.push_back(Diagnostic{Severity::kError, Span{}, std::string(status.message()), {}});
  }
  return diags;
}

std::string RenderDiagnostic(const Diagnostic& diag, const std::string& fallback_file) {
  std::string out;
  RenderOne(out, diag.severity, diag.span, diag.message, fallback_file);
  for (const Note& n : diag.notes) {
    RenderOne(out, Severity::kNote, n.span, n.message, fallback_file);
  }
  return out;
}

std::string RenderStatus(const absl::Status& status, const std::string& fallback_file) {
  std::string out;
  for (const Diagnostic& d : StatusToDiagnostics(status)) {
    out += RenderDiagnostic(d, fallback_file);
  }
  return out;
}

void DiagnosticEngine::Error(Span span, std::string message, std::vector<Note> notes) {
  diags_.push_back(Diagnostic{Severity::kError, span, std::move(message), std::move(notes)});
}

bool DiagnosticEngine::has_errors() const {
  for (const Diagnostic& d : diags_) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
}

absl::Status DiagnosticEngine::ToStatus() const {
  if (!has_errors()) return absl::OkStatus();
  return DiagnosticsToStatus(diags_);
}

}  // namespace carve
