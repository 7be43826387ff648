# cmake -DAR=<ar> [-DOBJDUMP=<objdump>] -DINPUT=<libop2_x.a> -DOUTPUT=<libop2_for_x.a>
#       -DOBJECTS=<a.o;b.o;...> -P op2_merge_archive.cmake
#
# OUTPUT = a copy of the C archive INPUT with the Fortran module objects added.
#
# GNU ar, when it rebuilds the symbol index, first offers every member to the
# LTO plugins in /usr/lib/bfd-plugins. The Rust objects carry embedded LLVM
# bitcode; an LLVM gold plugin older than rustc's LLVM (Debian's llvm-14) fails
# on them ("bfd plugin: LLVM gold plugin has failed to create LTO module") and
# ar then leaves their symbols OUT of the index, so links fail with undefined
# std/core symbols. Naming the object format (--target=elf64-x86-64, read from
# a Fortran object with objdump) keeps ar away from the plugins. The symbol
# count of the result is checked against the input's either way.
foreach(_v AR INPUT OUTPUT OBJECTS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "op2_merge_archive.cmake: ${_v} is not set")
  endif()
endforeach()

# Number of entries in a System V / GNU archive's symbol index ("/" or "/SYM64/").
function(_op2_index_count archive out)
  set(${out} -1 PARENT_SCOPE)
  file(READ "${archive}" _magic LIMIT 8)
  file(READ "${archive}" _name OFFSET 8 LIMIT 16)
  if(NOT _magic STREQUAL "!<arch>\n")
    return()
  endif()
  if(_name MATCHES "^/SYM64/")
    file(READ "${archive}" _hex OFFSET 68 LIMIT 8 HEX)
  elseif(_name MATCHES "^/ ")
    file(READ "${archive}" _hex OFFSET 68 LIMIT 4 HEX)
  else()
    return()
  endif()
  math(EXPR _n "0x${_hex}")
  set(${out} ${_n} PARENT_SCOPE)
endfunction()

set(_ar_flags "")
execute_process(COMMAND "${AR}" --version OUTPUT_VARIABLE _ar_version ERROR_QUIET RESULT_VARIABLE _rc)
if(_rc EQUAL 0 AND _ar_version MATCHES "GNU" AND OBJDUMP)
  list(GET OBJECTS 0 _first)
  execute_process(COMMAND "${OBJDUMP}" -f "${_first}" OUTPUT_VARIABLE _od ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _od MATCHES "file format ([^ \n]+)")
    set(_ar_flags "--target=${CMAKE_MATCH_1}")
  endif()
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${INPUT}" "${OUTPUT}.tmp" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cannot copy ${INPUT} to ${OUTPUT}.tmp")
endif()
execute_process(COMMAND "${AR}" ${_ar_flags} rs "${OUTPUT}.tmp" ${OBJECTS}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${AR} ${_ar_flags} rs ${OUTPUT} failed (${_rc}):\n${_out}${_err}")
endif()
if(_out OR _err)
  message("${_out}${_err}")
endif()

_op2_index_count("${INPUT}" _n_in)
_op2_index_count("${OUTPUT}.tmp" _n_out)
if(_n_out LESS _n_in)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${AR} ${_ar_flags} rs ${OUTPUT}: the symbol index has ${_n_out} entries, "
                      "fewer than the ${_n_in} of ${INPUT} (an LTO plugin of ar rejected members?)")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
