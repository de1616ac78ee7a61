#include "core/report/json_stream.h"

namespace qkv {
namespace {

std::string compact(const nlohmann::ordered_json& value) {
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

void JsonStream::beforeValue() {
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_empty.empty()) {
        if (!m_empty.back()) m_out << ',';
        m_empty.back() = false;
    }
}

void JsonStream::key(const std::string& name) {
    beforeValue();
    m_out << compact(nlohmann::ordered_json(name)) << ':';
    m_afterKey = true;
}

void JsonStream::value(const nlohmann::ordered_json& value) {
    beforeValue();
    m_out << compact(value);
}

void JsonStream::members(const nlohmann::ordered_json& object) {
    for (const auto& [name, member] : object.items()) {
        key(name);
        value(member);
    }
}

void JsonStream::open(char bracket) {
    beforeValue();
    m_out << bracket;
    m_empty.push_back(true);
}

void JsonStream::close(char bracket) {
    m_empty.pop_back();
    m_out << bracket;
}

}  // namespace qkv
