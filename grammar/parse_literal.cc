// Scalar literals and `meta[...]` references.
//
// Scalar constants of equal dtype and value share their (immutable) storage:
// a 100k-op graph full of `1f` holds one buffer, not 100k.
#include <bit>
#include <cstring>

#include "fmt/format.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {

// Bound on the scalar storage memo.
constexpr size_t kMaxCachedScalars = 4096;

NDArray Parser::ScalarArray(DataType dtype, uint64_t bits) {
  std::pair<uint32_t, uint64_t> key{uint32_t(dtype.code) << 8 | dtype.bits, bits};
  auto it = scalar_cache_.find(key);
  if (it != scalar_cache_.end()) return it->second;
  NDArray array = NDArray::Empty(dtype, std::span<const int64_t>{});
  // Little-endian: the low bytes of `bits` are the value at this width.
  std::memcpy(array.raw_data(), &bits, size_t(dtype.bytes()));
  if (scalar_cache_.size() < kMaxCachedScalars) scalar_cache_.emplace(key, array);
  return array;
}

const Expr* Parser::MakeLiteral(const Token& t) {
  DataType dtype = t.dtype;
  uint64_t bits = 0;
  switch (t.kind) {
    case TokenKind::kTrue:
    case TokenKind::kFalse:
      dtype = DataType::Bool();
      bits = t.kind == TokenKind::kTrue;
      break;
    case TokenKind::kInt:
      bits = static_cast<uint64_t>(t.int_value);
      break;
    default:  // kFloat
      if (dtype.bits == 16) {
        bits = FloatToHalf(static_cast<float>(t.float_value));
      } else if (dtype.bits == 32) {
        bits = std::bit_cast<uint32_t>(static_cast<float>(t.float_value));
      } else {
        bits = std::bit_cast<uint64_t>(t.float_value);
      }
      break;
  }
  return b_.MakeConstant(ScalarArray(dtype, bits), SpanOf(t));
}

namespace {

std::string MetaText(std::string_view key, int64_t index) {
  return fmt::format("meta[{}][{}]", key, index);
}

}  // namespace

// Checks that the section exists and parsed; false (reported) otherwise.
bool Parser::CheckMetadata(const Token& t) {
  if (Metadata().offset == MetadataState::kNone) {
    Error(SpanOf(t), fmt::format("'{}' refers to the metadata section, but there is no "
                                 "#[metadata] section at the end of the file",
                                 lex_.TextOf(t)));
    return false;
  }
  return Metadata().ok;  // a broken section is reported once, at its marker
}

const Expr* Parser::ParseMetaExpr(const Token& t) {
  std::string_view key = lex_.MetaKey(t);
  if (key != "relay.Constant") {
    Error(SpanOf(t), fmt::format("'{}' is not an expression (only meta[relay.Constant][i] is)",
                                 lex_.TextOf(t)));
    return Placeholder(SpanOf(t));
  }
  if (!CheckMetadata(t)) return Placeholder(SpanOf(t));
  const std::vector<NDArray>& constants = Metadata().contents.constants;
  if (uint64_t(t.int_value) >= constants.size()) {
    Error(SpanOf(t), fmt::format("'{}' is out of range: the metadata section has {} "
                                 "relay.Constant entries",
                                 MetaText(key, t.int_value), constants.size()));
    return Placeholder(SpanOf(t));
  }
  if (meta_constants_.empty()) meta_constants_.resize(constants.size(), nullptr);
  const Constant*& node = meta_constants_[size_t(t.int_value)];
  // One node per entry, as TVM: repeated references share it.
  if (node == nullptr) node = b_.MakeConstant(constants[size_t(t.int_value)], SpanOf(t));
  return node;
}

const VirtualDevice* Parser::MetaVirtualDevice(const Token& t) {
  if (!CheckMetadata(t)) return nullptr;
  const std::vector<const VirtualDevice*>& devices = Metadata().contents.virtual_devices;
  if (uint64_t(t.int_value) >= devices.size()) {
    Error(SpanOf(t), fmt::format("'{}' is out of range: the metadata section has {} "
                                 "VirtualDevice entries",
                                 lex_.TextOf(t), devices.size()));
    return nullptr;
  }
  return devices[size_t(t.int_value)];
}

const MetaAttrs* Parser::MetaAttrsObject(const Token& t) {
  if (!CheckMetadata(t)) return nullptr;
  std::string key(lex_.MetaKey(t));
  auto it = Metadata().contents.attrs.find(key);
  if (it == Metadata().contents.attrs.end()) {
    Error(SpanOf(t),
          fmt::format("'{}': the metadata section has no '{}' entries", lex_.TextOf(t), key));
    return nullptr;
  }
  if (uint64_t(t.int_value) >= it->second.size()) {
    Error(SpanOf(t), fmt::format("'{}' is out of range: the metadata section has {} '{}' entries",
                                 lex_.TextOf(t), it->second.size(), key));
    return nullptr;
  }
  return &it->second[size_t(t.int_value)];
}

}  // namespace carve::parser_internal
