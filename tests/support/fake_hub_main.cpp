// fake-hub: the tests' fake Hugging Face Hub as a program, for trying the app and other Hub
// clients against it by hand:
//   fake-hub [--rate BYTES_PER_SECOND] [--token TOKEN] ID=MODEL_FOLDER...
// prints its endpoint (use it as HF_ENDPOINT) and serves until stdin closes.
#include <cstdlib>
#include <iostream>
#include <string>

#include "tests/support/fake_hub_server.h"

int main(int argc, char** argv) {
    qkv::test::FakeHubServer server;
    std::size_t rate = 0;
    std::string token;
    int repos = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--rate" && i + 1 < argc) {
            rate = std::strtoull(argv[++i], nullptr, 10);
        } else if (arg == "--token" && i + 1 < argc) {
            token = argv[++i];
        } else if (const size_t eq = arg.find('='); eq != std::string::npos) {
            auto repo = qkv::test::fakeRepoFromFolder(
                arg.substr(0, eq),
                "1234567890abcdef1234567890abcdef" + std::to_string(10000000 + repos),
                arg.substr(eq + 1));
            repo.bytesPerSecond = rate;
            repo.token = token;
            server.add(repo);
            ++repos;
        } else {
            std::cerr << "usage: fake-hub [--rate BYTES_PER_SECOND] [--token TOKEN] "
                         "ID=MODEL_FOLDER...\n";
            return 2;
        }
    }
    std::cout << server.endpoint() << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {
    }
    return 0;
}
