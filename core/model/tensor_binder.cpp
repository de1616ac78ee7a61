#include "core/model/tensor_binder.h"

#include "core/util/error.h"

namespace qkv {
namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace

TensorBinder::TensorBinder(TensorStore& store, std::vector<std::string> prefixes,
                           std::string folder)
    : m_store(store), m_prefixes(std::move(prefixes)), m_folder(std::move(folder)) {}

const TensorInfo* TensorBinder::resolve(const std::string& name) const {
    for (const auto& prefix : m_prefixes)
        if (const TensorInfo* t = m_store.find(prefix + name)) return t;
    return nullptr;
}

bool TensorBinder::has(const std::string& name) const { return resolve(name) != nullptr; }

const TensorInfo& TensorBinder::require(std::initializer_list<std::string> names) {
    for (const auto& name : names)
        if (const TensorInfo* t = resolve(name)) return *t;
    std::string tried;
    for (const auto& name : names)
        for (const auto& prefix : m_prefixes)
            tried += (tried.empty() ? "'" : ", '") + prefix + name + "'";
    throw Error(m_folder + ": missing tensor '" + *names.begin() + "' (looked for " + tried + ")");
}

const float* TensorBinder::bind(const TensorInfo& tensor, std::vector<std::int64_t> expected) {
    if (tensor.shape != expected)
        throw Error(tensor.file.string() + ": tensor '" + tensor.name + "' has shape " +
                    shapeText(tensor.shape) + ", expected " + shapeText(expected) +
                    " from config.json");
    const float* data = m_store.floats(tensor);
    m_parameters += static_cast<std::uint64_t>(tensor.elementCount());
    return data;
}

MatrixView TensorBinder::matrix(const std::string& name, std::int64_t rows, std::int64_t cols) {
    const TensorInfo& t = require({name});
    return MatrixView::rowMajor(bind(t, {rows, cols}), static_cast<int>(rows),
                                static_cast<int>(cols));
}

VectorView TensorBinder::vector(const std::string& name, std::int64_t size) {
    const TensorInfo& t = require({name});
    return {bind(t, {size}), static_cast<int>(size)};
}

VectorView TensorBinder::normWeight(const std::string& module, std::int64_t size) {
    const TensorInfo& t = require({module + ".weight", module + ".gamma"});
    return {bind(t, {size}), static_cast<int>(size)};
}

VectorView TensorBinder::normBias(const std::string& module, std::int64_t size) {
    const TensorInfo& t = require({module + ".bias", module + ".beta"});
    return {bind(t, {size}), static_cast<int>(size)};
}

}  // namespace qkv
