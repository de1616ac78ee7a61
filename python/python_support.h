#pragma once
// What the native module's files share: a model as Python holds it, and progress with Ctrl-C for
// calls that run without the GIL.
#include <pybind11/pybind11.h>

#include <atomic>
#include <memory>
#include <string>

#include "core/model/model.h"
#include "core/util/error.h"
#include "core/util/progress.h"

namespace qkv::python {

namespace py = pybind11;

// Progress and Ctrl-C for a call that runs without the GIL: each report takes the GIL, lets
// Python handle pending signals and calls the user's callback; an exception from either cancels
// the call, and guard() raises it once the core has stopped.
class PythonProgress {
  public:
    explicit PythonProgress(py::object callback) : m_callback(std::move(callback)) {}

    Progress progress() { return progressTo(m_callback); }
    // Another stage's reports (the analysis's W_U W_E before its layers) to their own
    // callback (None: Ctrl-C is still checked), cancelling the same call.
    Progress progressTo(py::object callback) {
        return [this, callback = std::move(callback)](int done, int total) {
            py::gil_scoped_acquire gil;
            if (m_error) return;
            try {
                if (PyErr_CheckSignals() != 0) throw py::error_already_set();
                if (!callback.is_none()) callback(done, total);
            } catch (py::error_already_set& error) {
                m_error = std::make_unique<py::error_already_set>(std::move(error));
                m_cancel = true;
            }
        };
    }
    const std::atomic<bool>* cancel() const { return &m_cancel; }
    // Runs `work` (without the GIL), turning the core's Cancelled into the Python exception
    // that cancelled it.
    template <typename Work>
    auto guard(Work&& work) -> decltype(work()) {
        try {
            return work();
        } catch (const Cancelled&) {
            py::gil_scoped_acquire gil;
            if (m_error) throw std::move(*m_error);
            throw;
        }
    }

  private:
    py::object m_callback;
    std::atomic<bool> m_cancel{false};
    std::unique_ptr<py::error_already_set> m_error;
};

// A model opened by qkvlab.open, and the backend its forwards run on.
struct NativeModel {
    std::shared_ptr<const Model> model;
    std::string backend;
};

}  // namespace qkv::python
