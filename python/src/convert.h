// Conversions between carve values and Python objects: attribute values,
// attribute sets, types and tensors.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/type.h"

namespace carve::python {

// int, bool, float, str, list or None.
pybind11::object AttrValueToPy(const AttrValue& value);
// The inverse, by Python type (a list for tuples and lists); CarveError for
// other objects.
AttrValue PyToAttrValue(const pybind11::handle& value);
// An attribute set as a carve.ir.Attrs (a dict with attribute access), in
// the set's order; None for a null set.
pybind11::object AttrsToPy(const Attrs* attrs);

// Types are interned and never freed: a Python type object holds a pointer.
struct TypeHandle {
  const Type* type = nullptr;
};
pybind11::object WrapType(const Type* type);
// A type from a TypeHandle, or from a dtype string (a scalar tensor type).
const Type* PyToType(const pybind11::handle& value);

// A numpy array viewing `tensor`'s buffer (no copy), which the array keeps
// alive; read-only unless `writeable`.
pybind11::array TensorToNumpy(const NDArray& tensor, bool writeable);
// A tensor holding a copy of `array` (any supported dtype; C order).
NDArray NumpyToTensor(const pybind11::array& array);
// carve's dtype of a numpy dtype; CarveError when carve has no such dtype.
DataType NumpyDType(const pybind11::dtype& dtype);

}  // namespace carve::python
