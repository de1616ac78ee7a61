#pragma once
// The one exception type of the core: a message a user can act on (it names the file, tensor or
// argument at fault). Front ends print it on one line and exit non-zero, or show it in a dialog.
#include <stdexcept>
#include <string>

namespace qkv {

class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Thrown when long work (a forward, an analysis, training) sees its cancel flag raised.
class Cancelled : public Error {
  public:
    Cancelled() : Error("cancelled") {}
};

}  // namespace qkv
