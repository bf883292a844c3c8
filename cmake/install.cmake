# Installation: libraries, public headers, a CMake package (find_package(dlk CONFIG))
# and a pkg-config file, so frameworks link dlk like oneDNN or cuDNN.
include(CMakePackageConfigHelpers)

install(TARGETS dlk EXPORT dlkTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/dlk/dlk.h include/dlk/dlk.hpp include/dlk/dlk_device_codec.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlk)
install(EXPORT dlkTargets NAMESPACE dlk:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlk)

configure_package_config_file(cmake/dlkConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/dlkConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlk)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/dlkConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dlkConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/dlkConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlk)

file(RELATIVE_PATH DLK_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" DLK_PC_TO_PREFIX "${DLK_PC_TO_PREFIX}")
configure_file(cmake/dlk.pc.in ${CMAKE_CURRENT_BINARY_DIR}/dlk.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dlk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
