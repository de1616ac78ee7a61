#include "core/hub/hub_settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "core/io/hub_cache.h"
#include "core/util/environment.h"

namespace qkv {
namespace {

std::string environment(const char* name) { return environmentVariable(name).value_or(""); }

std::string trimmed(std::string text) {
    const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
    text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
    text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
    return text;
}

// huggingface_hub's reading of a boolean variable.
bool isTrue(std::string value) {
    std::transform(value.begin(), value.end(), value.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return value == "1" || value == "on" || value == "yes" || value == "true";
}

std::string savedToken() {
    std::string path = environment("HF_TOKEN_PATH");
    if (path.empty()) path = (hubHomeDir() / "token").string();
    std::ifstream in(path);
    std::string token;
    std::getline(in, token);
    return trimmed(token);
}

}  // namespace

HubSettings HubSettings::fromEnvironment() {
    HubSettings s;
    s.endpoint = trimmed(environment("HF_ENDPOINT"));
    if (s.endpoint.empty()) s.endpoint = "https://huggingface.co";
    while (!s.endpoint.empty() && s.endpoint.back() == '/') s.endpoint.pop_back();
    s.token = trimmed(environment("HF_TOKEN"));
    if (s.token.empty()) s.token = savedToken();
    s.offline = isTrue(environment("HF_HUB_OFFLINE"));
    s.cache = hubCacheDir();
    return s;
}

}  // namespace qkv
