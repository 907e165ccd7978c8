// Diagnostics: errors and notes attached to source spans, carried inside an
// absl::Status so that "errors are values" all the way up to the CLI, and
// rendered in one format:
//
//   model.relay:12:17: error: expected ')' after call arguments
//     %2 = nn.conv2d(%x, %w
//                     ^
//   model.relay:12:15: note: to close '(' here
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "support/source.h"

namespace carve {

enum class Severity { kError, kWarning, kNote };

struct Note {
  Span span;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  Span span;
  std::string message;
  std::vector<Note> notes;
};

// A status with code `code` whose message is the first diagnostic's message
// and whose payload holds all of `diags` (with their spans and notes).
absl::Status DiagnosticsToStatus(
    const std::vector<Diagnostic>& diags,
    absl::StatusCode code = absl::StatusCode::kInvalidArgument);

// Shorthand for a single error at `span`.
absl::Status SpanError(Span span, std::string message,
                       absl::StatusCode code = absl::StatusCode::kInvalidArgument);

// Same, with one note.
absl::Status SpanError(Span span, std::string message, Note note,
                       absl::StatusCode code = absl::StatusCode::kInvalidArgument);

// The diagnostics carried by `status` (one span-less error when it carries
// none). Empty for an OK status.
std::vector<Diagnostic> StatusToDiagnostics(const absl::Status& status);

// Renders one diagnostic: "file:line:col: error: msg", source line, caret,
// then its notes. `fallback_file` names span-less diagnostics.
std::string RenderDiagnostic(const Diagnostic& diag,
                             const std::string& fallback_file = "carve");

// Renders every diagnostic carried by `status`.
std::string RenderStatus(const absl::Status& status,
                         const std::string& fallback_file = "carve");

// Collects several independent diagnostics (parsers use it to report more
// than one error per run).
class DiagnosticEngine {
 public:
  void Error(Span span, std::string message, std::vector<Note> notes = {});
  void Add(Diagnostic diag) { diags_.push_back(std::move(diag)); }
  bool has_errors() const;
  size_t size() const { return diags_.size(); }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  // OK when empty, otherwise DiagnosticsToStatus(diagnostics()).
  absl::Status ToStatus() const;

 private:
  std::vector<Diagnostic> diags_;
};

}  // namespace carve
