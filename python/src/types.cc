#include "convert.h"
#include "handles.h"

namespace carve::python {

pybind11::object WrapType(const Type* type) {
  if (type == nullptr) return pybind11::none();
  return pybind11::cast(TypeHandle{type});
}

}  // namespace carve::python
