#include "backends/nnapi/nnapi_model.h"

#include <array>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve {
namespace {

constexpr std::string_view kFuseNames[] = {"ANEURALNETWORKS_FUSED_NONE", "ANEURALNETWORKS_FUSED_RELU",
                                           "ANEURALNETWORKS_FUSED_RELU1",
                                           "ANEURALNETWORKS_FUSED_RELU6"};

absl::Status Unsupported(const JsonNode& node, std::string_view why) {
  return absl::UnimplementedError(
      fmt::format("nnapi converter: node '{}': {}", node.name, why));
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

absl::StatusOr<std::vector<int64_t>> Ints(const JsonNode& node, std::string_view key,
                                          std::vector<int64_t> fallback) {
  const std::vector<std::string>* values = node.FindAttr(key);
  if (values == nullptr) return fallback;
  std::vector<int64_t> out;
  for (const std::string& s : *values) {
    std::optional<int64_t> v = ParseInt(s);
    if (!v) return Unsupported(node, fmt::format("attribute {} is not a list of integers", key));
    out.push_back(*v);
  }
  return out;
}

std::string Str(const JsonNode& node, std::string_view key, std::string fallback) {
  const std::vector<std::string>* values = node.FindAttr(key);
  return values != nullptr && values->size() == 1 && !(*values)[0].empty() ? (*values)[0]
                                                                           : fallback;
}

// Relay's 1, 2 or 4 paddings (top, left, bottom, right) as NNAPI's left,
// right, top, bottom.
absl::StatusOr<std::array<int64_t, 4>> Paddings(const JsonNode& node) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> p, Ints(node, "padding", {0, 0, 0, 0}));
  if (p.size() == 1) p = {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) p = {p[0], p[1], p[0], p[1]};
  if (p.size() != 4) return Unsupported(node, "padding is not 1, 2 or 4 values");
  return std::array<int64_t, 4>{p[1], p[3], p[0], p[2]};
}

absl::StatusOr<std::string> NnapiTensorType(const JsonNode& node, DataType dtype) {
  if (dtype == DataType::Float(32)) return std::string("ANEURALNETWORKS_TENSOR_FLOAT32");
  if (dtype == DataType::Float(16)) return std::string("ANEURALNETWORKS_TENSOR_FLOAT16");
  if (dtype == DataType::Int(32)) return std::string("ANEURALNETWORKS_TENSOR_INT32");
  return Unsupported(node, fmt::format("dtype {} (NNAPI's converter scope: float32, float16)",
                                       dtype.ToString()));
}

// `src` (dims named by `from`) with its dims reordered as `to`.
NDArray Permute(const NDArray& src, std::string_view from, std::string_view to) {
  size_t rank = src.rank();
  std::vector<size_t> axis(rank);  // axis[j] = the source dim of target dim j
  std::vector<int64_t> shape(rank);
  for (size_t j = 0; j < rank; ++j) {
    axis[j] = from.find(to[j]);
    shape[j] = src.shape()[axis[j]];
  }
  std::vector<int64_t> src_stride(rank, 1);
  for (size_t i = rank; i-- > 1;) src_stride[i - 1] = src_stride[i] * src.shape()[i];
  NDArray out = NDArray::Empty(src.dtype(), shape);
  size_t bytes = src.dtype().bytes();
  std::vector<int64_t> index(rank, 0);
  const auto* in = static_cast<const std::byte*>(src.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (int64_t k = 0; k < out.num_elements(); ++k) {
    int64_t offset = 0;
    for (size_t j = 0; j < rank; ++j) offset += index[j] * src_stride[axis[j]];
    std::memcpy(dst + k * bytes, in + offset * bytes, bytes);
    for (size_t j = rank; j-- > 0;) {
      if (++index[j] < shape[j]) break;
      index[j] = 0;
    }
  }
  return out;
}

class Converter {
 public:
  explicit Converter(const SerializedFunction& f) : f_(f) {
    model_.symbol = f.graph.symbol;
    for (const auto& [name, tensor] : f.constants) constants_.emplace(name, tensor);
  }

  absl::StatusOr<NnapiModel> Run() {
    const std::vector<JsonNode>& nodes = f_.graph.nodes;
    for (uint32_t nid = 0; nid < nodes.size(); ++nid) {
      const JsonNode& node = nodes[nid];
      if (node.op == "input") {
        CARVE_ASSIGN_OR_RETURN(uint32_t id, Tensor(node, 0, "SUBGRAPH_INPUT"));
        model_.operands[id].name = node.name;
        model_.inputs.push_back(id);
        entries_[{nid, 0}] = id;
      } else if (node.op == "kernel") {
        CARVE_RETURN_IF_ERROR(Kernel(nid, node));
      }
    }
    for (const JsonEntry& head : f_.graph.heads) {
      auto it = entries_.find({head.node, head.index});
      if (it == entries_.end() || model_.operands[it->second].lifetime != "TEMPORARY_VARIABLE") {
        return Unsupported(nodes[head.node], "a model output must be computed by an operation");
      }
      model_.operands[it->second].lifetime = "SUBGRAPH_OUTPUT";
      model_.outputs.push_back(it->second);
    }
    return std::move(model_);
  }

 private:
  uint32_t Add(NnapiOperand operand) {
    model_.operands.push_back(std::move(operand));
    return static_cast<uint32_t>(model_.operands.size() - 1);
  }

  absl::StatusOr<uint32_t> Tensor(const JsonNode& node, size_t out, std::string lifetime) {
    NnapiOperand o;
    CARVE_ASSIGN_OR_RETURN(o.type, NnapiTensorType(node, node.dtypes.at(out)));
    o.dimensions = node.shapes.at(out);
    o.lifetime = std::move(lifetime);
    return Add(std::move(o));
  }

  uint32_t Scalar(std::string type, std::string value, std::string meaning = "") {
    NnapiOperand o;
    o.type = std::move(type);
    o.lifetime = "CONSTANT_COPY";
    o.value = std::move(value);
    o.meaning = std::move(meaning);
    return Add(std::move(o));
  }
  uint32_t Int32(int64_t v) { return Scalar("ANEURALNETWORKS_INT32", fmt::format("[{}]", v)); }
  uint32_t Fuse(int code) {
    return Scalar("ANEURALNETWORKS_INT32", fmt::format("[{}]", code), std::string(kFuseNames[code]));
  }
  uint32_t Bool(bool v) { return Scalar("ANEURALNETWORKS_BOOL", v ? "[true]" : "[false]"); }

  // A file-backed constant the converter made.
  absl::StatusOr<uint32_t> NewConstant(const JsonNode& node, NDArray value) {
    NnapiOperand o;
    CARVE_ASSIGN_OR_RETURN(o.type, NnapiTensorType(node, value.dtype()));
    o.dimensions = value.shape();
    o.lifetime = "CONSTANT_REFERENCE";
    std::string stem = fmt::format("{}_nnapi_{}", model_.symbol, model_.constants.size());
    o.npy = stem + ".npy";
    model_.constants.emplace_back(stem, std::move(value));
    return Add(std::move(o));
  }

  // The operand of an input entry of `node`; constants become
  // CONSTANT_REFERENCE operands of their .npy file on first use.
  absl::StatusOr<uint32_t> Input(const JsonNode& node, size_t i) {
    if (i >= node.inputs.size()) return Unsupported(node, "missing input");
    const JsonEntry& e = node.inputs[i];
    if (auto it = entries_.find({e.node, e.index}); it != entries_.end()) return it->second;
    const JsonNode& src = f_.graph.nodes[e.node];
    if (src.op != "const") return Unsupported(node, "input without an operand");
    NnapiOperand o;
    CARVE_ASSIGN_OR_RETURN(o.type, NnapiTensorType(src, src.dtypes.at(0)));
    o.dimensions = src.shapes.at(0);
    if (o.dimensions.empty()) o.dimensions = {1};  // a scalar: same bytes, rank 1
    o.lifetime = "CONSTANT_REFERENCE";
    o.npy = src.name + ".npy";
    return entries_[{e.node, e.index}] = Add(std::move(o));
  }

  absl::StatusOr<NDArray> ConstantOf(const JsonNode& node, size_t i) {
    if (i >= node.inputs.size()) return Unsupported(node, "missing input");
    const JsonNode& src = f_.graph.nodes[node.inputs[i].node];
    auto it = constants_.find(src.name);
    if (src.op != "const" || it == constants_.end()) {
      return Unsupported(node, "the weight is not a constant");
    }
    return it->second;
  }

  absl::Status Emit(uint32_t nid, const JsonNode& node, std::string type,
                    std::vector<uint32_t> inputs) {
    CARVE_ASSIGN_OR_RETURN(uint32_t out, Tensor(node, 0, "TEMPORARY_VARIABLE"));
    entries_[{nid, 0}] = out;
    model_.operations.push_back(
        NnapiOperation{"ANEURALNETWORKS_" + type, std::move(inputs), {out}, node.name});
    return absl::OkStatus();
  }

  absl::Status Kernel(uint32_t nid, const JsonNode& node) {
    if (node.num_outputs != 1) return Unsupported(node, "more than one output");
    static const std::map<std::string, std::string, std::less<>> kUnary = {
        {"nn.relu", "RELU"}, {"sigmoid", "LOGISTIC"}, {"tanh", "TANH"},
        {"exp", "EXP"},      {"sqrt", "SQRT"}};
    static const std::map<std::string, std::string, std::less<>> kBinary = {
        {"add", "ADD"}, {"subtract", "SUB"}, {"multiply", "MUL"}, {"divide", "DIV"}};
    if (node.FindAttr("body") != nullptr) return Composite(nid, node);
    if (auto it = kUnary.find(node.name); it != kUnary.end()) {
      CARVE_ASSIGN_OR_RETURN(uint32_t x, Input(node, 0));
      return Emit(nid, node, it->second, {x});
    }
    if (auto it = kBinary.find(node.name); it != kBinary.end()) {
      CARVE_ASSIGN_OR_RETURN(uint32_t a, Input(node, 0));
      CARVE_ASSIGN_OR_RETURN(uint32_t b, Input(node, 1));
      return Emit(nid, node, it->second, {a, b, Fuse(0)});
    }
    if (node.name == "nn.softmax") return Softmax(nid, node);
    if (node.name == "nn.max_pool2d" || node.name == "nn.avg_pool2d") return Pool(nid, node);
    if (node.name == "reshape") {
      CARVE_ASSIGN_OR_RETURN(uint32_t x, Input(node, 0));
      const std::vector<int64_t>& shape = node.shapes.at(0);
      NnapiOperand o;
      o.type = "ANEURALNETWORKS_TENSOR_INT32";
      o.dimensions = {static_cast<int64_t>(shape.size())};
      o.lifetime = "CONSTANT_COPY";
      o.value = fmt::format("[{}]", fmt::join(shape, ", "));
      return Emit(nid, node, "RESHAPE", {x, Add(std::move(o))});
    }
    return Unsupported(node, "no NNAPI operation for this op");
  }

  absl::Status Softmax(uint32_t nid, const JsonNode& node) {
    CARVE_ASSIGN_OR_RETURN(uint32_t x, Input(node, 0));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axis, Ints(node, "axis", {-1}));
    bool half = node.dtypes.at(0) == DataType::Float(16);
    uint32_t beta = Scalar(half ? "ANEURALNETWORKS_FLOAT16" : "ANEURALNETWORKS_FLOAT32", "[1.0]");
    return Emit(nid, node, "SOFTMAX", {x, beta, Int32(axis.at(0))});
  }

  absl::StatusOr<bool> Nchw(const JsonNode& node, std::string_view key) {
    std::string layout = Str(node, key, "NCHW");
    if (layout != "NCHW" && layout != "NHWC") {
      return Unsupported(node, fmt::format("{} {} (NNAPI takes NHWC or NCHW)", key, layout));
    }
    return layout == "NCHW";
  }

  absl::Status Pool(uint32_t nid, const JsonNode& node) {
    CARVE_ASSIGN_OR_RETURN(uint32_t x, Input(node, 0));
    CARVE_ASSIGN_OR_RETURN(bool nchw, Nchw(node, "layout"));
    CARVE_ASSIGN_OR_RETURN(auto pad, Paddings(node));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> size, Ints(node, "pool_size", {1, 1}));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, Ints(node, "strides", {1, 1}));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, Ints(node, "dilation", {1, 1}));
    if (size.size() == 1) size.push_back(size[0]);
    if (strides.size() == 1) strides.push_back(strides[0]);
    if (Str(node, "ceil_mode", "0") != "0") return Unsupported(node, "ceil_mode");
    for (int64_t d : dilation) {
      if (d != 1) return Unsupported(node, "dilated pooling");
    }
    bool padded = pad[0] || pad[1] || pad[2] || pad[3];
    if (node.name == "nn.avg_pool2d" && padded && Str(node, "count_include_pad", "0") != "0") {
      return Unsupported(node, "count_include_pad with padding (NNAPI averages valid elements)");
    }
    std::vector<uint32_t> in = {x};
    for (int64_t p : pad) in.push_back(Int32(p));
    in.push_back(Int32(strides.at(1)));
    in.push_back(Int32(strides.at(0)));
    in.push_back(Int32(size.at(1)));
    in.push_back(Int32(size.at(0)));
    in.push_back(Fuse(0));
    in.push_back(Bool(nchw));
    return Emit(nid, node, node.name == "nn.max_pool2d" ? "MAX_POOL_2D" : "AVERAGE_POOL_2D", in);
  }

  // anchor [-> nn.bias_add] [-> nn.relu | clip]: the fused activation code.
  absl::StatusOr<int> Activation(const JsonNode& node, const std::vector<std::string>& body,
                                 bool& has_bias) {
    has_bias = false;
    int fuse = 0;
    for (size_t i = 1; i < body.size(); ++i) {
      std::string_view e = body[i];
      bool last = i + 1 == body.size();
      if (e.starts_with("nn.bias_add(") && i == 1) {
        has_bias = true;
      } else if (e.starts_with("nn.relu(") && last) {
        fuse = 1;
      } else if (e.starts_with("clip(") && last) {
        std::optional<double> lo = ParseDouble(Str(node, "clip.a_min", ""));
        std::optional<double> hi = ParseDouble(Str(node, "clip.a_max", ""));
        if (lo == 0.0 && hi == 6.0) {
          fuse = 3;
        } else if (lo == -1.0 && hi == 1.0) {
          fuse = 2;
        } else {
          return Unsupported(node, "clip other than RELU6 (0, 6) or RELU1 (-1, 1)");
        }
      } else {
        return Unsupported(node, fmt::format("'{}' in a composite (NNAPI fuses bias and "
                                             "relu / relu1 / relu6 only)",
                                             e));
      }
    }
    return fuse;
  }

  // The bias operand: the composite's constant, or zeros of `n` elements.
  absl::StatusOr<uint32_t> Bias(const JsonNode& node, bool has_bias, int64_t n) {
    if (has_bias) {
      CARVE_ASSIGN_OR_RETURN(NDArray bias, ConstantOf(node, 2));
      if (bias.num_elements() != n) return Unsupported(node, "bias is not one value per channel");
      return Input(node, 2);
    }
    return NewConstant(node, NDArray::Empty(node.dtypes.at(0), {n}));
  }

  absl::Status Composite(uint32_t nid, const JsonNode& node) {
    const std::vector<std::string>& body = *node.FindAttr("body");
    bool has_bias = false;
    CARVE_ASSIGN_OR_RETURN(int fuse, Activation(node, body, has_bias));
    if (body.empty()) return Unsupported(node, "empty composite");
    if (body[0] == "nn.conv2d(i0,i1)") return Conv(nid, node, has_bias, fuse);
    if (body[0] == "nn.dense(i0,i1)") {
      CARVE_ASSIGN_OR_RETURN(uint32_t x, Input(node, 0));
      CARVE_ASSIGN_OR_RETURN(NDArray w, ConstantOf(node, 1));
      if (has_bias && Str(node, "nn.bias_add.axis", "1") != "1" &&
          Str(node, "nn.bias_add.axis", "1") != "-1") {
        return Unsupported(node, "bias_add over another axis than the units");
      }
      CARVE_ASSIGN_OR_RETURN(uint32_t weight, Input(node, 1));
      CARVE_ASSIGN_OR_RETURN(uint32_t bias, Bias(node, has_bias, w.shape().at(0)));
      return Emit(nid, node, "FULLY_CONNECTED", {x, weight, bias, Fuse(fuse)});
    }
    return Unsupported(node, fmt::format("composite anchored at '{}'", body[0]));
  }

  absl::Status Conv(uint32_t nid, const JsonNode& node, bool has_bias, int fuse) {
    CARVE_ASSIGN_OR_RETURN(uint32_t x, Input(node, 0));
    CARVE_ASSIGN_OR_RETURN(bool nchw, Nchw(node, "data_layout"));
    if (std::string out = Str(node, "out_layout", ""); !out.empty() && out != Str(node, "data_layout", "NCHW")) {
      return Unsupported(node, "out_layout differs from data_layout");
    }
    std::string kernel_layout = Str(node, "kernel_layout", "OIHW");
    if (kernel_layout.size() != 4 || kernel_layout.find_first_not_of("OIHW") != std::string::npos) {
      return Unsupported(node, fmt::format("kernel_layout {}", kernel_layout));
    }
    CARVE_ASSIGN_OR_RETURN(NDArray w, ConstantOf(node, 1));
    const JsonNode& data = f_.graph.nodes[node.inputs[0].node];
    const std::vector<int64_t>& in_shape = data.shapes.at(node.inputs[0].index);
    int64_t c_in = in_shape.at(nchw ? 1 : 3);
    int64_t c_out = node.shapes.at(0).at(nchw ? 1 : 3);
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> g, Ints(node, "groups", {1}));
    int64_t groups = g.at(0);
    if (has_bias) {
      CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axis, Ints(node, "nn.bias_add.axis", {1}));
      int64_t a = axis.at(0) < 0 ? axis.at(0) + 4 : axis.at(0);
      if (a != (nchw ? 1 : 3)) return Unsupported(node, "bias_add over another axis than channels");
    }
    CARVE_ASSIGN_OR_RETURN(auto pad, Paddings(node));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, Ints(node, "strides", {1, 1}));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, Ints(node, "dilation", {1, 1}));
    if (strides.size() == 1) strides.push_back(strides[0]);
    if (dilation.size() == 1) dilation.push_back(dilation[0]);
    bool depthwise = groups > 1 && groups == c_in && c_out % groups == 0;
    std::string type = groups == 1 ? "CONV_2D" : depthwise ? "DEPTHWISE_CONV_2D" : "GROUPED_CONV_2D";
    if (type == "GROUPED_CONV_2D" && (dilation[0] != 1 || dilation[1] != 1)) {
      return Unsupported(node, "dilated grouped convolution");
    }
    // NNAPI's filter layout: [depth_out, h, w, depth_in]; depthwise [1, h, w, depth_out].
    CARVE_ASSIGN_OR_RETURN(uint32_t filter,
                           kernel_layout == (depthwise ? "IHWO" : "OHWI")
                               ? Input(node, 1)
                               : NewConstant(node, Permute(w, kernel_layout,
                                                           depthwise ? "IHWO" : "OHWI")));
    CARVE_ASSIGN_OR_RETURN(uint32_t bias, Bias(node, has_bias, c_out));
    std::vector<uint32_t> in = {x, filter, bias};
    for (int64_t p : pad) in.push_back(Int32(p));
    in.push_back(Int32(strides.at(1)));
    in.push_back(Int32(strides.at(0)));
    if (depthwise) in.push_back(Int32(c_out / groups));
    if (type == "GROUPED_CONV_2D") in.push_back(Int32(groups));
    in.push_back(Fuse(fuse));
    in.push_back(Bool(nchw));
    if (type != "GROUPED_CONV_2D") {
      in.push_back(Int32(dilation.at(1)));
      in.push_back(Int32(dilation.at(0)));
    }
    return Emit(nid, node, type, in);
  }

  const SerializedFunction& f_;
  NnapiModel model_;
  std::map<std::string, NDArray, std::less<>> constants_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> entries_;
};

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string OperandJson(size_t index, const NnapiOperand& o) {
  std::string out = fmt::format("{{\"index\": {}, \"type\": {}", index, Quote(o.type));
  if (o.type.starts_with("ANEURALNETWORKS_TENSOR_")) {
    out += fmt::format(", \"dimensions\": [{}]", fmt::join(o.dimensions, ", "));
  }
  out += fmt::format(", \"lifetime\": {}", Quote(o.lifetime));
  if (!o.name.empty()) out += fmt::format(", \"name\": {}", Quote(o.name));
  if (!o.npy.empty()) out += fmt::format(", \"npy\": {}", Quote(o.npy));
  if (!o.value.empty()) out += fmt::format(", \"value\": {}", o.value);
  if (!o.meaning.empty()) out += fmt::format(", \"meaning\": {}", Quote(o.meaning));
  return out + "}";
}

}  // namespace

absl::StatusOr<NnapiModel> ConvertToNnapiModel(const SerializedFunction& function) {
  return Converter(function).Run();
}

std::string WriteNnapiModel(const NnapiModel& model) {
  std::string out = fmt::format("{{\n  \"symbol\": {},\n  \"format\": \"carve-nnapi-model-1\",\n",
                                Quote(model.symbol));
  out += "  \"operands\": [\n";
  for (size_t i = 0; i < model.operands.size(); ++i) {
    out += "    " + OperandJson(i, model.operands[i]) +
           (i + 1 < model.operands.size() ? ",\n" : "\n");
  }
  out += "  ],\n  \"operations\": [\n";
  for (size_t i = 0; i < model.operations.size(); ++i) {
    const NnapiOperation& op = model.operations[i];
    out += fmt::format(
        "    {{\"index\": {}, \"type\": {}, \"inputs\": [{}], \"outputs\": [{}], \"from\": {}}}{}\n",
        i, Quote(op.type), fmt::join(op.inputs, ", "), fmt::join(op.outputs, ", "),
        Quote(op.from), i + 1 < model.operations.size() ? "," : "");
  }
  out += fmt::format("  ],\n  \"inputs\": [{}],\n  \"outputs\": [{}]\n}}\n",
                     fmt::join(model.inputs, ", "), fmt::join(model.outputs, ", "));
  return out;
}

std::string NnapiModelFileName(const std::string& symbol) { return symbol + ".nnapi.json"; }

}  // namespace carve
