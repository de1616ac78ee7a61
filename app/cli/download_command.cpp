#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/hub/hub_download.h"

namespace qkv::cli {
namespace {

const OptionSpec kId{"id", "ID", "Hugging Face model id, e.g. EleutherAI/pythia-160m", true};

int runDownload(const Arguments& args) {
    const std::string id = args.required(kId);
    const std::string revision = args.value("revision").value_or("main");
    const HubSettings hub = HubSettings::fromEnvironment();
    const DownloadResult result = downloadModel(id, revision, hub, terminalDownloadProgress(id));
    if (args.flag("json")) {
        printJson({{"id", id},
                   {"revision", revision},
                   {"commit", result.commit},
                   {"snapshot", result.snapshot.string()},
                   {"files", result.filesTotal},
                   {"files_fetched", result.filesFetched},
                   {"bytes_fetched", result.bytesFetched}});
        return 0;
    }
    if (hub.offline)
        std::fprintf(stderr, "%s: in the cache (HF_HUB_OFFLINE is set: the Hub was not asked)\n",
                     id.c_str());
    else
        std::fprintf(stderr, "%s: %d of %d files fetched (%.1f MB), %d already in the cache\n",
                     id.c_str(), result.filesFetched, result.filesTotal,
                     static_cast<double>(result.bytesFetched) / 1e6,
                     result.filesTotal - result.filesFetched);
    std::cout << result.snapshot.string() << "\n";
    return 0;
}

}  // namespace

Command downloadCommand() {
    return {"download",
            "fetch a model's config, safetensors weights and tokenizer from the Hugging Face Hub "
            "into its cache and print the snapshot folder",
            {kId, {"revision", "REV", "branch, tag or commit (default main)"}, jsonOption()},
            runDownload};
}

}  // namespace qkv::cli
