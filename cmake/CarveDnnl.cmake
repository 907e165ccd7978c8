# carve::dnnl: oneDNN's library and headers, for carve's build and for
# carveConfig.cmake (the installed package includes this file).
#
# Debian's dnnl-config.cmake insists on OpenCL development files (its library
# is built with the OpenCL GPU runtime), which carve does not use, so the
# library and header are located directly. Sets carve_DNNL_FOUND.
set(carve_DNNL_FOUND TRUE)
if(NOT TARGET carve::dnnl)
  find_library(CARVE_DNNL_LIBRARY NAMES dnnl)
  find_path(CARVE_DNNL_INCLUDE_DIR NAMES oneapi/dnnl/dnnl.hpp)
  if(CARVE_DNNL_LIBRARY AND CARVE_DNNL_INCLUDE_DIR)
    add_library(carve::dnnl UNKNOWN IMPORTED)
    set_target_properties(carve::dnnl PROPERTIES
      IMPORTED_LOCATION "${CARVE_DNNL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CARVE_DNNL_INCLUDE_DIR}")
  else()
    set(carve_DNNL_FOUND FALSE)
  endif()
endif()
