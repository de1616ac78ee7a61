#pragma once
// Resolves checkpoint tensor names to float32 views with shape checks. Names are tried with each
// of the architecture's prefixes ("" and "transformer." for GPT-2, say), and LayerNorm
// parameters also under their legacy gamma/beta names. Errors name the tensor and what was
// expected.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/backend/matrix_view.h"
#include "core/io/safetensors.h"

namespace qkv {

class TensorBinder {
public:
    TensorBinder(TensorStore& store, std::vector<std::string> prefixes, std::string folder);

    // A 2-D tensor with exactly this shape, as row-major [rows, cols].
    MatrixView matrix(const std::string& name, std::int64_t rows, std::int64_t cols);
    VectorView vector(const std::string& name, std::int64_t size);
    bool has(const std::string& name) const;
    // LayerNorm weight/bias, accepting ".gamma"/".beta" for ".weight"/".bias".
    VectorView normWeight(const std::string& module, std::int64_t size);
    VectorView normBias(const std::string& module, std::int64_t size);

    std::uint64_t parameterCount() const { return m_parameters; }

private:
    const TensorInfo* resolve(const std::string& name) const;
    const TensorInfo& require(std::initializer_list<std::string> names);
    const float* bind(const TensorInfo& tensor, std::vector<std::int64_t> expected);

    TensorStore& m_store;
    std::vector<std::string> m_prefixes;
    std::string m_folder;
    std::uint64_t m_parameters = 0;
};

}  // namespace qkv
