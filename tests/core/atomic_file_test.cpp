// writeFileAtomically: a write replaces the file whole or not at all. Failures (the writer
// throws, the disk fills up, the folder cannot be written) throw qkv::Error, keep the previous
// file byte for byte and leave no temporary file behind. The full-disk and read-only cases mount
// a tiny tmpfs, which needs root (tests run as root in CI); elsewhere they skip and say why.
#include "core/util/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using test::TempDir;

std::string contentOf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> filesIn(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string errorOf(const std::filesystem::path& target, std::string_view content) {
    try {
        writeFileAtomically(target, content);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a qkv::Error writing " << target;
    return {};
}

// A tmpfs of `size` mounted on a fresh folder, unmounted with the object.
class TinyFileSystem {
  public:
    explicit TinyFileSystem(const char* options) : m_mountPoint(m_dir.path() / "mnt") {
        std::filesystem::create_directory(m_mountPoint);
        if (::mount("tmpfs", m_mountPoint.c_str(), "tmpfs", 0, options) != 0)
            m_error = std::strerror(errno);
    }
    ~TinyFileSystem() {
        if (m_error.empty()) ::umount2(m_mountPoint.c_str(), MNT_DETACH);
    }
    // Empty when mounted, else why not.
    const std::string& error() const { return m_error; }
    const std::filesystem::path& path() const { return m_mountPoint; }
    bool makeReadOnly() {
        return ::mount("tmpfs", m_mountPoint.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) ==
               0;
    }

  private:
    TempDir m_dir;
    std::filesystem::path m_mountPoint;
    std::string m_error;
};

#define REQUIRE_MOUNTED(fs)                                                   \
    if (!(fs).error().empty())                                                \
    GTEST_SKIP() << "cannot mount a tmpfs to simulate this (" << (fs).error() \
                 << "); needs root or CAP_SYS_ADMIN, as in CI"

TEST(AtomicFile, CreatesAndReplacesWholeFiles) {
    TempDir dir;
    const auto target = dir.path() / "view.json";
    writeFileAtomically(target, "first");
    EXPECT_EQ(contentOf(target), "first");
    writeFileAtomically(target, [](std::ostream& out) { out << "second, " << 2; });
    EXPECT_EQ(contentOf(target), "second, 2");
    EXPECT_EQ(filesIn(dir.path()), std::vector<std::string>{"view.json"});
}

TEST(AtomicFile, ReplacedFileKeepsItsPermissions) {
    TempDir dir;
    const auto target = dir.path() / "settings.json";
    writeFileAtomically(target, "{}");
    using std::filesystem::perms;
    std::filesystem::permissions(target, perms::owner_read | perms::owner_write);
    writeFileAtomically(target, "{\"a\": 1}");
    EXPECT_EQ(std::filesystem::status(target).permissions(),
              perms::owner_read | perms::owner_write);
}

TEST(AtomicFile, WriterThatThrowsLeavesThePreviousFile) {
    TempDir dir;
    const auto target = dir.path() / "metrics.json";
    writeFileAtomically(target, "previous");
    EXPECT_THROW(writeFileAtomically(target,
                                     [](std::ostream& out) {
                                         out << "half of the new cont";
                                         throw Error("export cancelled");
                                     }),
                 Error);
    EXPECT_EQ(contentOf(target), "previous");
    EXPECT_EQ(filesIn(dir.path()), std::vector<std::string>{"metrics.json"});
}

TEST(AtomicFile, FullDiskGivesAnErrorAndKeepsThePreviousFile) {
    TinyFileSystem fs("size=64k");
    REQUIRE_MOUNTED(fs);
    const auto target = fs.path() / "export.csv";
    writeFileAtomically(target, std::string(1000, 'a'));
    const std::string message = errorOf(target, std::string(1 << 20, 'b'));
    EXPECT_NE(message.find(target.string()), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(ENOSPC)), std::string::npos) << message;
    EXPECT_EQ(contentOf(target), std::string(1000, 'a'));
    EXPECT_EQ(filesIn(fs.path()), std::vector<std::string>{"export.csv"});
    // The space is free again: a write that fits succeeds.
    writeFileAtomically(target, "small");
    EXPECT_EQ(contentOf(target), "small");
}

TEST(AtomicFile, ReadOnlyFolderGivesAnErrorAndKeepsThePreviousFile) {
    TinyFileSystem fs("size=64k");
    REQUIRE_MOUNTED(fs);
    const auto target = fs.path() / "checkpoint.json";
    writeFileAtomically(target, "previous");
    ASSERT_TRUE(fs.makeReadOnly()) << std::strerror(errno);
    const std::string message = errorOf(target, "new");
    EXPECT_NE(message.find("cannot write in " + fs.path().string()), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(EROFS)), std::string::npos) << message;
    EXPECT_EQ(contentOf(target), "previous");
}

// Root ignores permission bits, so "unwritable" here is a folder that cannot exist: a path
// under a regular file, and a folder that is not there.
TEST(AtomicFile, FolderThatCannotBeWrittenGivesAClearError) {
    TempDir dir;
    const auto file = dir.path() / "plain.txt";
    writeFileAtomically(file, "x");
    std::string message = errorOf(file / "out.json", "y");
    EXPECT_NE(message.find("cannot write in " + file.string()), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(ENOTDIR)), std::string::npos) << message;
    message = errorOf(dir.path() / "missing" / "out.json", "y");
    EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
    EXPECT_EQ(filesIn(dir.path()), std::vector<std::string>{"plain.txt"});
}

TEST(AtomicFile, TargetThatIsAFolderIsNotReplaced) {
    TempDir dir;
    std::filesystem::create_directory(dir.path() / "taken");
    writeFileAtomically(dir.path() / "taken" / "inside", "keep");
    const std::string message = errorOf(dir.path() / "taken", "data");
    EXPECT_NE(message.find("cannot replace"), std::string::npos) << message;
    EXPECT_EQ(contentOf(dir.path() / "taken" / "inside"), "keep");
    EXPECT_EQ(filesIn(dir.path()), std::vector<std::string>{"taken"});
}

}  // namespace
}  // namespace qkv
