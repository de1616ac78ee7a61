#pragma once
// The head atlas in the native module: a run that computes here or joins parts computed
// elsewhere (the Dask workers' atlas_part), and an atlas file's tables as JSON.
#include <pybind11/pybind11.h>

namespace qkv::python {

void bindAtlas(pybind11::module_& m);

}  // namespace qkv::python
