# Writes qkvlab-cli's man page from its template with the COMMANDS section taken from
# `qkvlab-cli --help`, so that the page lists every command the program has.
#   cmake -DCLI=qkvlab-cli -DTEMPLATE=qkvlab-cli.1.in -DOUTPUT=qkvlab-cli.1 -P man_page.cmake
execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${CLI} --help failed (${status})")
endif()
# Semicolons in the text would split CMake lists: set them aside.
string(REPLACE ";" "@SEMICOLON@" help "${help}")
string(REGEX REPLACE "^.*\ncommands:\n" "" help "${help}")
string(REGEX MATCHALL "  [a-z-]+ +[^\n]+" lines "${help}")
if(NOT lines)
  message(FATAL_ERROR "no commands in the output of ${CLI} --help")
endif()
set(QKV_CLI_COMMANDS "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "^  ([a-z-]+) +(.+)$" _ "${line}")
  set(description "${CMAKE_MATCH_2}")
  string(REPLACE "\\" "\\e" description "${description}")
  string(REPLACE "--" "\\-\\-" description "${description}")  # options, not hyphens
  string(APPEND QKV_CLI_COMMANDS ".TP\n.B ${CMAKE_MATCH_1}\n\\&${description}.\n")
endforeach()
string(REPLACE "@SEMICOLON@" ";" QKV_CLI_COMMANDS "${QKV_CLI_COMMANDS}")
string(STRIP "${QKV_CLI_COMMANDS}" QKV_CLI_COMMANDS)
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
