#pragma once
// Where the Hugging Face Hub is and who the user is, read from the environment variables that
// huggingface_hub defines, so QKV Lab and Python share one configuration:
//   HF_ENDPOINT      the Hub's base URL (default https://huggingface.co)
//   HF_TOKEN         an access token; else the token file ($HF_TOKEN_PATH, else $HF_HOME/token)
//   HF_HUB_OFFLINE   1/true/yes/on: never touch the network, use the cache only
//   HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME   the cache (core/io/hub_cache.h)
#include <filesystem>
#include <string>

namespace qkv {

struct HubSettings {
    std::string endpoint;  // without a trailing '/'
    std::string token;     // empty: anonymous
    bool offline = false;
    std::filesystem::path cache;

    static HubSettings fromEnvironment();
};

}  // namespace qkv
