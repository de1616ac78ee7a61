// JsonStream writes the bytes of the compact dump of the same document, whatever the nesting.
#include "core/report/json_stream.h"

#include <gtest/gtest.h>

#include <sstream>

namespace qkv {
namespace {

// Writes `doc` through the stream, objects and arrays opened and closed around their members.
void streamed(JsonStream& json, const nlohmann::ordered_json& doc) {
    if (doc.is_object()) {
        json.beginObject();
        for (const auto& [name, member] : doc.items()) {
            json.key(name);
            streamed(json, member);
        }
        json.endObject();
    } else if (doc.is_array()) {
        json.beginArray();
        for (const auto& element : doc) streamed(json, element);
        json.endArray();
    } else {
        json.value(doc);
    }
}

TEST(JsonStream, WritesTheCompactDumpOfTheSameDocument) {
    const nlohmann::ordered_json doc = {
        {"model", "gpt2"},
        {"tokens", {"Hello", " world", std::string("\xff\xfe")}},  // invalid UTF-8: U+FFFD
        {"empty", nlohmann::ordered_json::array()},
        {"nothing", nlohmann::ordered_json::object()},
        {"layers",
         {{{"heads", {{{"head", 0}, {"attention", {{1.0, 0.0}, {0.25, 0.75}}}}}}, {"layer", 3}},
          {{"heads", nlohmann::ordered_json::array()}, {"layer", 4}}}},
        {"routing", {nullptr, {{{"expert", 2}, {"weight", 0.1234567}}}}},
        {"flag", true}};
    std::ostringstream out;
    JsonStream json(out);
    streamed(json, doc);
    EXPECT_EQ(out.str(),
              doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));

    // Members merged into an open object, and whole values inside it.
    std::ostringstream merged;
    JsonStream m(merged);
    m.beginObject();
    m.members({{"a", 1}, {"b", {1, 2}}});
    m.key("c");
    m.beginArray();
    m.value({{"d", nullptr}});
    m.value(2.5);
    m.endArray();
    m.members({{"e", "f"}});
    m.endObject();
    EXPECT_EQ(merged.str(), R"({"a":1,"b":[1,2],"c":[{"d":null},2.5],"e":"f"})");
}

}  // namespace
}  // namespace qkv
