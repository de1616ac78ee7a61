#pragma once
// One JSON document written to a stream as it is produced: objects and arrays are opened and
// closed around values that are each small (a number, a matrix row), so a document of gigabytes
// needs no more memory than its largest small value. The bytes are those of the compact dump of
// the same document (strings with invalid UTF-8 written with U+FFFD, as the CLI's printJson).
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace qkv {

class JsonStream {
  public:
    explicit JsonStream(std::ostream& out) : m_out(out) {}

    void beginObject() { open('{'); }
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void endArray() { close(']'); }
    // The next member's name, inside an object; its value follows.
    void key(const std::string& name);
    // A whole value: an array element, or the member whose key came last.
    void value(const nlohmann::ordered_json& value);
    // Every member of `object`, in its order, as members of the open object.
    void members(const nlohmann::ordered_json& object);

  private:
    void open(char bracket);
    void close(char bracket);
    void beforeValue();  // the comma between elements, unless a key has just been written

    std::ostream& m_out;
    std::vector<bool> m_empty;  // per open container: nothing written in it yet
    bool m_afterKey = false;
};

}  // namespace qkv
