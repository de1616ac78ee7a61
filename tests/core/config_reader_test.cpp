// config.json as Python's json module writes it: bare Infinity, -Infinity and NaN (Nemotron-H's
// "time_step_limit": [0.0, Infinity]) read as transformers v5 spells them, strings untouched.
#include "core/io/config_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace qkv {
namespace {

TEST(ConfigReaderNonFinite, BareTokensParseAndReadAsInfinity) {
    const std::string text =
        R"({"time_step_limit": [0.0, Infinity], "low": [-Infinity, 1], "x": NaN,)"
        R"( "name": "Infinity NaN \"Infinity\"", "v5": [0.0, {"__float__": "Infinity"}]})";
    const nlohmann::json doc = nlohmann::json::parse(withNonFiniteFloatsSpelled(text));
    const ConfigReader r(doc, "config.json");
    const std::vector<double> limit = r.extendedNumbers("time_step_limit");
    ASSERT_EQ(limit.size(), 2u);
    EXPECT_EQ(limit[0], 0.0);
    EXPECT_TRUE(std::isinf(limit[1]) && limit[1] > 0);
    EXPECT_TRUE(std::isinf(r.extendedNumbers("low")[0]) && r.extendedNumbers("low")[0] < 0);
    EXPECT_EQ(r.extendedNumbers("v5"), limit);
    EXPECT_EQ(r.stringOr("name", ""), "Infinity NaN \"Infinity\"");  // inside a string: kept
}

TEST(ConfigReaderNonFinite, ANanBoundOrAStringIsRefusedNamingTheKey) {
    const nlohmann::json doc = nlohmann::json::parse(
        withNonFiniteFloatsSpelled(R"({"a": [0.0, NaN], "b": [0.0, "inf"]})"));
    const ConfigReader r(doc, "config.json");
    for (const char* key : {"a", "b"}) {
        try {
            r.extendedNumbers(key);
            ADD_FAILURE() << key << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("\"") + key + "\""), std::string::npos)
                << e.what();
        }
    }
}

}  // namespace
}  // namespace qkv
