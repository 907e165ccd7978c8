#include "convert.h"

#include <cstring>
#include <string>
#include <vector>

#include "errors.h"
#include "fmt/format.h"

namespace py = pybind11;

namespace carve::python {

py::object AttrValueToPy(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNull: return py::none();
    case AttrValue::Kind::kInt: return py::int_(value.as_int());
    case AttrValue::Kind::kBool: return py::bool_(value.as_bool());
    case AttrValue::Kind::kFloat: return py::float_(value.as_float());
    case AttrValue::Kind::kString: return py::str(std::string(value.as_string()));
    case AttrValue::Kind::kArray: {
      py::list items;
      for (const AttrValue& v : value.as_array()) items.append(AttrValueToPy(v));
      return items;
    }
  }
  return py::none();
}

AttrValue PyToAttrValue(const py::handle& value) {
  if (value.is_none()) return AttrValue();
  // bool before int: Python's bool is an int.
  if (py::isinstance<py::bool_>(value)) return AttrValue::Bool(value.cast<bool>());
  if (py::isinstance<py::int_>(value)) {
    int64_t v = value.cast<int64_t>();
    bool fits32 = v >= INT32_MIN && v <= INT32_MAX;
    return AttrValue::Int(v, fits32 ? 32 : 64);
  }
  if (py::isinstance<py::float_>(value)) return AttrValue::Float(value.cast<double>());
  if (py::isinstance<py::str>(value)) return AttrValue::Str(value.cast<std::string>());
  // numpy scalars and anything else with __index__ / __float__.
  if (py::hasattr(value, "__index__")) return AttrValue::Int(value.attr("__index__")().cast<int64_t>());
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<AttrValue> items;
    for (py::handle item : value) items.push_back(PyToAttrValue(item));
    return AttrValue::Array(items);
  }
  if (py::hasattr(value, "__float__")) return AttrValue::Float(value.attr("__float__")().cast<double>());
  ThrowIfError(absl::InvalidArgumentError(
      fmt::format("cannot use a {} as an attribute value",
                  std::string(py::str(value.get_type().attr("__name__"))))));
  return AttrValue();
}

py::object AttrsToPy(const Attrs* attrs) {
  if (attrs == nullptr) return py::none();
  py::dict d;
  for (const AttrEntry& e : attrs->entries()) d[py::str(std::string(e.key))] = AttrValueToPy(e.value);
  return py::module_::import("carve.ir").attr("Attrs")(d);
}

pybind11::object WrapType(const Type* type) {
  if (type == nullptr) return pybind11::none();
  return pybind11::cast(TypeHandle{type});
}

const Type* PyToType(const py::handle& value) {
  if (py::isinstance<TypeHandle>(value)) return value.cast<const TypeHandle&>().type;
  if (py::isinstance<py::str>(value)) {
    std::string text = value.cast<std::string>();
    std::optional<DataType> dtype = DataType::Parse(text);
    if (!dtype) ThrowIfError(absl::InvalidArgumentError(fmt::format("unknown dtype '{}'", text)));
    return ScalarTy(*dtype);
  }
  ThrowIfError(absl::InvalidArgumentError("expected a type or a dtype string"));
  return nullptr;
}

namespace {

struct DTypePair {
  DataType carve;
  const char* numpy;
};

constexpr DTypePair kDTypes[] = {
    {DataType::Float(32), "float32"}, {DataType::Float(64), "float64"},
    {DataType::Float(16), "float16"}, {DataType::Int(8), "int8"},
    {DataType::Int(16), "int16"},     {DataType::Int(32), "int32"},
    {DataType::Int(64), "int64"},     {DataType::UInt(8), "uint8"},
    {DataType::UInt(16), "uint16"},   {DataType::UInt(32), "uint32"},
    {DataType::UInt(64), "uint64"},   {DataType::Bool(), "bool"},
};

}  // namespace

DataType NumpyDType(const py::dtype& dtype) {
  std::string name = py::str(dtype.attr("name"));
  for (const DTypePair& p : kDTypes) {
    if (name == p.numpy) return p.carve;
  }
  ThrowIfError(absl::InvalidArgumentError(fmt::format("carve has no dtype for numpy's {}", name)));
  return DataType();
}

py::array TensorToNumpy(const NDArray& tensor, bool writeable) {
  std::string name;
  for (const DTypePair& p : kDTypes) {
    if (p.carve == tensor.dtype()) name = p.numpy;
  }
  if (name.empty()) {
    ThrowIfError(absl::UnimplementedError(
        fmt::format("numpy has no dtype for carve's {}", tensor.dtype().ToString())));
  }
  py::dtype dtype(name);
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = dtype.itemsize();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  // The capsule owns a copy of the tensor handle, which shares the buffer.
  auto* owner = new NDArray(tensor);
  py::capsule capsule(owner, [](void* p) { delete static_cast<NDArray*>(p); });
  py::array array(dtype, shape, strides, const_cast<void*>(owner->raw_data()), capsule);
  if (!writeable) array.attr("flags").attr("writeable") = false;
  return array;
}

NDArray NumpyToTensor(const py::array& input) {
  DataType dtype = NumpyDType(input.dtype());
  py::array array = py::array::ensure(input, py::array::c_style);
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  NDArray tensor = NDArray::Empty(dtype, shape);
  if (tensor.nbytes() != size_t(array.nbytes())) {
    ThrowIfError(absl::InternalError("numpy and carve disagree on the size of an array"));
  }
  if (tensor.nbytes() > 0) std::memcpy(tensor.raw_data(), array.data(), tensor.nbytes());
  return tensor;
}

}  // namespace carve::python
