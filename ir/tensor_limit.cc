#include "ir/tensor_limit.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdlib>

#include "fmt/format.h"
#include "ir/tensor_size.h"

namespace carve {
namespace {

// 0 = no scoped override.
std::atomic<int64_t> scoped_limit{0};

int64_t HalfPhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return int64_t{4} << 30;  // unknown: 4 GiB
  return int64_t(pages) * int64_t(page_size) / 2;
}

// The process default, read once: the environment, else the memory size.
// A malformed CARVE_MAX_TENSOR_BYTES is ignored here; the CLI reports it.
int64_t ProcessDefault() {
  static const int64_t value = [] {
    if (const char* env = std::getenv("CARVE_MAX_TENSOR_BYTES")) {
      if (absl::StatusOr<int64_t> v = ParseByteSize(env); v.ok()) return *v;
    }
    return HalfPhysicalMemory();
  }();
  return value;
}

std::string LimitText(int64_t limit) {
  return fmt::format(
      "over the tensor limit of {} bytes (raise it with CARVE_MAX_TENSOR_BYTES or "
      "`carve run --max-tensor-bytes`)",
      limit);
}

}  // namespace

int64_t MaxTensorBytes() {
  int64_t scoped = scoped_limit.load();
  return scoped > 0 ? scoped : ProcessDefault();
}

ScopedMaxTensorBytes::ScopedMaxTensorBytes(int64_t bytes) : previous_(scoped_limit.load()) {
  scoped_limit.store(bytes);
}

ScopedMaxTensorBytes::~ScopedMaxTensorBytes() { scoped_limit.store(previous_); }

absl::StatusOr<int64_t> ParseByteSize(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, text.data() + text.size() - end);
  int shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  else if (suffix == "M" || suffix == "m") shift = 20;
  else if (suffix == "G" || suffix == "g") shift = 30;
  else if (suffix == "T" || suffix == "t") shift = 40;
  else if (!suffix.empty()) ec = std::errc::invalid_argument;
  if (ec != std::errc() || end == text.data() || value <= 0 || value > (INT64_MAX >> shift)) {
    return absl::InvalidArgumentError(fmt::format(
        "expected a positive byte count such as 4096, 512M or 8G, got '{}'", text));
  }
  return value << shift;
}

absl::Status CheckTensorFits(const Type* type, int64_t limit, std::string_view what) {
  if (const TupleType* tuple = DynCast<TupleType>(type)) {
    for (const Type* field : tuple->fields()) {
      if (absl::Status s = CheckTensorFits(field, limit, what); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  const TensorType* t = DynCast<TensorType>(type);
  if (t == nullptr || !t->is_static()) return absl::OkStatus();
  std::optional<int64_t> bytes = CheckedByteSize(*t);
  if (!bytes) {
    return absl::ResourceExhaustedError(
        fmt::format("{}{}{}", what, what.empty() ? "" : " ", OversizedMessage(*t)));
  }
  if (*bytes <= limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(fmt::format("{}{}{} needs {} bytes, {}", what,
                                                  what.empty() ? "" : " ", TypeToString(t),
                                                  *bytes, LimitText(limit)));
}

}  // namespace carve
