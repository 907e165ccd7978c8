#include "frontend/onnx/model_reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "fmt/format.h"

namespace carve::onnx_import {
namespace {

namespace fs = std::filesystem;

std::string TensorLabel(const onnx::TensorProto& t) {
  return t.name().empty() ? std::string("tensor") : fmt::format("tensor '{}'", t.name());
}

// The bytes of an externally stored tensor: `location` (relative to the
// model's folder), `offset` and `length` keys, as onnx.external_data_helper
// writes them.
absl::StatusOr<std::string> ReadExternalData(const onnx::TensorProto& t,
                                             const std::string& base_dir, size_t nbytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset") offset = std::strtoll(e.value().c_str(), nullptr, 10);
    else if (e.key() == "length") length = std::strtoll(e.value().c_str(), nullptr, 10);
  }
  if (location.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{} has external data without a location", TensorLabel(t)));
  }
  if (base_dir.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} keeps its data in external file '{}', which cannot be found for a model read "
        "from standard input",
        TensorLabel(t), location));
  }
  // Not cleared inside the loop over its own parts: that iterated a path
  // being destroyed and hung on `../x`.
  const fs::path rel(location);
  const bool leaves = std::any_of(rel.begin(), rel.end(),
                                  [](const fs::path& part) { return part == ".."; });
  if (leaves || rel.empty() || rel.is_absolute()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: external data location '{}' leaves the model's folder", TensorLabel(t), location));
  }
  fs::path path = fs::path(base_dir) / rel;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: cannot open external data file '{}'", TensorLabel(t), path.string()));
  }
  if (length < 0) length = int64_t(nbytes);
  if (size_t(length) != nbytes || offset < 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: external data holds {} bytes at offset {}, the tensor needs {}", TensorLabel(t),
        length, offset, nbytes));
  }
  std::string data(nbytes, '\0');
  in.seekg(offset);
  in.read(data.data(), std::streamsize(nbytes));
  if (size_t(in.gcount()) != nbytes) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: external data file '{}' ends before byte {}", TensorLabel(t), path.string(),
        offset + int64_t(nbytes)));
  }
  return data;
}

// Copies a typed repeated field into `out`, converting each element.
template <typename Field, typename Elem>
void CopyTyped(const Field& field, NDArray& out) {
  Elem* dst = out.data<Elem>();
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<Elem>(field.Get(i));
}

absl::Status FillFromTypedFields(const onnx::TensorProto& t, NDArray& out) {
  const int64_t n = out.num_elements();
  auto count_error = [&](int64_t got) {
    return absl::InvalidArgumentError(fmt::format(
        "{} holds {} values, its shape needs {}", TensorLabel(t), got, n));
  };
  DataType dt = out.dtype();
  using onnx::TensorProto;
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      if (t.float_data_size() != n) return count_error(t.float_data_size());
      CopyTyped<decltype(t.float_data()), float>(t.float_data(), out);
      return absl::OkStatus();
    case TensorProto::DOUBLE:
      if (t.double_data_size() != n) return count_error(t.double_data_size());
      CopyTyped<decltype(t.double_data()), double>(t.double_data(), out);
      return absl::OkStatus();
    case TensorProto::INT64:
      if (t.int64_data_size() != n) return count_error(t.int64_data_size());
      CopyTyped<decltype(t.int64_data()), int64_t>(t.int64_data(), out);
      return absl::OkStatus();
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      if (t.uint64_data_size() != n) return count_error(t.uint64_data_size());
      if (dt.bits == 32) CopyTyped<decltype(t.uint64_data()), uint32_t>(t.uint64_data(), out);
      else CopyTyped<decltype(t.uint64_data()), uint64_t>(t.uint64_data(), out);
      return absl::OkStatus();
    default:
      break;
  }
  // int32_data carries every type of 32 bits or fewer (float16 as its bits).
  if (t.int32_data_size() != n) return count_error(t.int32_data_size());
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = t.int32_data(int(i));
    switch (dt.bytes()) {
      case 1: out.data<uint8_t>()[i] = uint8_t(v); break;
      case 2: out.data<uint16_t>()[i] = uint16_t(v); break;
      default: out.data<int32_t>()[i] = v; break;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<onnx::ModelProto> ParseModel(std::string_view bytes) {
  onnx::ModelProto model;
  if (bytes.size() > size_t(INT32_MAX)) {
    return absl::InvalidArgumentError("ONNX model over 2 GiB: keep the weights as external data");
  }
  if (!model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    // A .relay file given to `carve import` (or from_onnx) is the usual
    // mistake: say so rather than blame a protobuf.
    std::string_view start = bytes;  // after blank and `//` comment lines
    for (;;) {
      const size_t first = start.find_first_not_of(" \t\r\n");
      start = first == std::string_view::npos ? "" : start.substr(first);
      if (!start.starts_with("//")) break;
      const size_t eol = start.find('\n');
      start = eol == std::string_view::npos ? "" : start.substr(eol);
    }
    if (start.starts_with("#[version") || start.starts_with("def @") ||
        start.starts_with("fn (")) {
      return absl::InvalidArgumentError(
          "this is Relay text, not an ONNX model: carve's other commands read it as it is "
          "(carve.load in Python)");
    }
    return absl::InvalidArgumentError(
        "malformed or truncated ONNX model: the protobuf message does not parse");
  }
  if (!model.has_graph() || model.graph().node_size() + model.graph().output_size() == 0) {
    return absl::InvalidArgumentError(
        "malformed or truncated ONNX model: it has no graph (is it an ONNX file?)");
  }
  return model;
}

absl::StatusOr<DataType> DTypeFromOnnx(int onnx_type) {
  using onnx::TensorProto;
  switch (onnx_type) {
    case TensorProto::FLOAT: return DataType::Float(32);
    case TensorProto::DOUBLE: return DataType::Float(64);
    case TensorProto::FLOAT16: return DataType::Float(16);
    case TensorProto::INT8: return DataType::Int(8);
    case TensorProto::INT16: return DataType::Int(16);
    case TensorProto::INT32: return DataType::Int(32);
    case TensorProto::INT64: return DataType::Int(64);
    case TensorProto::UINT8: return DataType::UInt(8);
    case TensorProto::UINT16: return DataType::UInt(16);
    case TensorProto::UINT32: return DataType::UInt(32);
    case TensorProto::UINT64: return DataType::UInt(64);
    case TensorProto::BOOL: return DataType::Bool();
    default: break;
  }
  std::string name = onnx::TensorProto::DataType_IsValid(onnx_type)
                         ? onnx::TensorProto::DataType_Name(onnx::TensorProto::DataType(onnx_type))
                         : fmt::format("#{}", onnx_type);
  return absl::UnimplementedError(fmt::format("ONNX element type {} is not supported", name));
}

absl::StatusOr<NDArray> TensorFromProto(const onnx::TensorProto& t, const std::string& base_dir) {
  auto dtype = DTypeFromOnnx(t.data_type());
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(), fmt::format("{}: {}", TensorLabel(t),
                                                           std::string(dtype.status().message())));
  }
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          fmt::format("{} has a negative dimension {}", TensorLabel(t), d));
    }
  }
  // The size is checked against the data present before anything is
  // allocated: a corrupt file must not ask for petabytes.
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > (int64_t(1) << 40) / d) {
      return absl::InvalidArgumentError(
          fmt::format("{} has an impossible shape (over 2^40 elements)", TensorLabel(t)));
    }
    count *= d;
  }
  const size_t nbytes = size_t(count) * size_t(dtype->bytes());
  if (t.data_location() != onnx::TensorProto::EXTERNAL && t.has_raw_data() &&
      t.raw_data().size() != nbytes) {
    return absl::InvalidArgumentError(fmt::format(
        "{} holds {} bytes of raw data, its shape needs {}", TensorLabel(t), t.raw_data().size(),
        nbytes));
  }
  if (t.data_location() != onnx::TensorProto::EXTERNAL && !t.has_raw_data() && count > 0) {
    int64_t present = std::max({t.float_data_size(), t.int32_data_size(), t.int64_data_size(),
                                t.double_data_size(), t.uint64_data_size()});
    if (present != count) {
      return absl::InvalidArgumentError(fmt::format(
          "{} holds {} values, its shape needs {}", TensorLabel(t), present, count));
    }
  }
  NDArray out = NDArray::Empty(*dtype, shape);
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    auto data = ReadExternalData(t, base_dir, nbytes);
    if (!data.ok()) return data.status();
    if (nbytes) std::memcpy(out.raw_data(), data->data(), nbytes);
    return out;
  }
  if (t.has_raw_data()) {
    if (nbytes) std::memcpy(out.raw_data(), t.raw_data().data(), nbytes);
    return out;
  }
  if (absl::Status s = FillFromTypedFields(t, out); !s.ok()) return s;
  return out;
}

absl::StatusOr<NDArray> ParseTensorFile(std::string_view bytes) {
  onnx::TensorProto t;
  if (!t.ParseFromArray(bytes.data(), int(bytes.size()))) {
    return absl::InvalidArgumentError("malformed or truncated TensorProto");
  }
  return TensorFromProto(t, "");
}

}  // namespace carve::onnx_import
