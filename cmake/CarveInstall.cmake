# `cmake --install build --prefix P`:
#   P/bin/carve                         the tool (needs no file at run time)
#   P/lib/libcarve_*.a                  the static libraries
#   P/include/carve/<folder>/*.h        public headers (+ .def/.inc they include)
#   P/include/carve/version.h
#   P/share/carve/backends/<n>/<n>.pat  the built-in specs, to copy and edit
#   P/lib/cmake/carve/                  carveConfig.cmake, carveConfigVersion.cmake,
#                                       carveTargets.cmake (carve::<x> targets)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CARVE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/carve)

if(TARGET carve)
  install(TARGETS carve RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

get_property(carve_exported GLOBAL PROPERTY CARVE_EXPORTED_TARGETS)
install(TARGETS ${carve_exported} EXPORT carveTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT carveTargets NAMESPACE carve:: DESTINATION ${CARVE_INSTALL_CMAKEDIR})

foreach(folder ${CARVE_LIBRARY_FOLDERS})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/carve/${folder}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.inc")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/include/carve/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/carve)

foreach(spec ${CARVE_SPEC_FILES})
  get_filename_component(dir ${spec} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${spec} DESTINATION ${CMAKE_INSTALL_DATADIR}/carve/${dir})
endforeach()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/carveConfig.cmake.in
  ${PROJECT_BINARY_DIR}/carveConfig.cmake
  INSTALL_DESTINATION ${CARVE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_DATADIR CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/carveConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/carveConfig.cmake
              ${PROJECT_BINARY_DIR}/carveConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/CarveDnnl.cmake
        DESTINATION ${CARVE_INSTALL_CMAKEDIR})
