#include "errors.h"

#include <string>

#include "support/diagnostics.h"

namespace carve::python {
namespace {

// What ThrowIfError throws; translated to CarveError below.
struct CarveErrorException {
  std::string text;
  std::string code;
};

// Never destroyed: a static py::object would be released after the
// interpreter has finalized.
pybind11::object& CarveErrorType() {
  static auto* type = new pybind11::object();
  return *type;
}

}  // namespace

void BindErrors(pybind11::module_& m) {
  // A subclass of ValueError: bad input is a value error in Python's terms,
  // and `except ValueError` in ported code keeps working.
  pybind11::object type = pybind11::reinterpret_steal<pybind11::object>(
      PyErr_NewExceptionWithDoc("carve._carve.CarveError",
                                "An error reported by carve; str() is its file:line:col "
                                "diagnostic.",
                                PyExc_ValueError, nullptr));
  if (!type) throw pybind11::error_already_set();
  m.attr("CarveError") = type;
  CarveErrorType() = type;
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CarveErrorException& e) {
      // The text may quote bytes of a file that is not UTF-8 (a source line
      // of a Latin-1 comment): decoded with replacement characters, never
      // turned into a UnicodeDecodeError that hides the diagnostic.
      pybind11::object text = pybind11::reinterpret_steal<pybind11::object>(
          PyUnicode_DecodeUTF8(e.text.data(), static_cast<Py_ssize_t>(e.text.size()), "replace"));
      if (!text) throw pybind11::error_already_set();
      pybind11::object error = CarveErrorType()(text);
      error.attr("code") = e.code;
      PyErr_SetObject(CarveErrorType().ptr(), error.ptr());
    }
  });
}

void ThrowText(std::string text, absl::StatusCode code) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  throw CarveErrorException{std::move(text), absl::StatusCodeToString(code)};
}

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  ThrowText(RenderStatus(status), status.code());
}

}  // namespace carve::python
