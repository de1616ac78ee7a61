#pragma once
// Progress of long work that proceeds in steps (a model's layers): called with the steps done
// and the total after each step, on the thread doing the work. Empty: nobody listens.
#include <functional>

namespace qkv {

using Progress = std::function<void(int done, int total)>;

}  // namespace qkv
