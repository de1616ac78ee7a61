// Broken or unsupported tokenizer files: each must give a qkv::Error that names the file and the
// problem, never a crash or a silently wrong tokenizer.
#include <gtest/gtest.h>

#include "core/tokenize/tokenizer.h"
#include "core/util/error.h"
#include "tests/core/tokenize_test_files.h"

namespace qkv::test {
namespace {

// Loads the tokenizer in `dir` and expects a qkv::Error whose message has every fragment.
void expectLoadError(const std::filesystem::path& dir, const std::vector<std::string>& fragments) {
    try {
        loadTokenizer(dir);
        ADD_FAILURE() << "no error for " << dir;
    } catch (const Error& e) {
        for (const std::string& fragment : fragments)
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
                << "'" << fragment << "' not in: " << e.what();
    }
}

constexpr const char* kGoodVocab = R"({"a": 0, "b": 1, "ab": 2})";

TEST(TokenizeErrors, NoTokenizerFiles) {
    const ScratchDir dir;
    dir.write("merges.txt", "a b\n");  // merges.txt alone is not a tokenizer
    expectLoadError(dir.path(), {dir.path().string(), "no tokenizer files"});
}

TEST(TokenizeErrors, VocabJson) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{\"a\": 0,", "invalid JSON"},
        {"[\"a\"]", "expected a JSON object"},
        {"{}", "empty"},
        {R"({"a": "0"})", "expected an integer"},
        {R"({"a": 0.5})", "expected an integer"},
        {R"({"a": 0, "b": 0})", "also given to"},
        {R"({"a": 0, "b": 2})", "out of range"},
        {R"({"a": -1})", "out of range"},
        {R"({"a": 99999999999})", "out of range"},
    };
    for (const auto& [content, problem] : cases) {
        SCOPED_TRACE(content);
        const ScratchDir dir;
        dir.write("merges.txt", "#version: 0.2\n");
        dir.write("vocab.json", content);
        expectLoadError(dir.path(), {"vocab.json", problem});
    }
}

TEST(TokenizeErrors, MergesTxt) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"#version: 0.2\na c\n", "'c', which is not in the vocabulary"},
        {"#version: 0.2\nb b\n", "makes 'bb', which is not in the vocabulary"},
        {"#version: 0.2\nab\n", "line 2"},
        {"a b\n\na b\n", "line 2"},
        {"a  b\n", "line 1"},
        {"a b\xFF\n", "not valid UTF-8"},
    };
    for (const auto& [content, problem] : cases) {
        SCOPED_TRACE(content);
        const ScratchDir dir;
        dir.write("vocab.json", kGoodVocab);
        dir.write("merges.txt", content);
        expectLoadError(dir.path(), {"merges.txt", problem});
    }
    // A final newline is optional.
    const ScratchDir dir;
    dir.write("vocab.json", kGoodVocab);
    dir.write("merges.txt", "#version: 0.2\na b");
    EXPECT_EQ(idsOf(loadTokenizer(dir.path())->encode("ab")), (std::vector<int>{2}));
}

TEST(TokenizeErrors, VocabTxtAndConfig) {
    {
        const ScratchDir dir;
        dir.write("vocab.txt", "");
        expectLoadError(dir.path(), {"vocab.txt", "empty"});
    }
    {
        const ScratchDir dir;
        dir.write("vocab.txt", "[CLS]\n[SEP]\nhello\n");
        expectLoadError(dir.path(), {"vocab.txt", "'[UNK]'"});
    }
    {
        const ScratchDir dir;
        dir.write("vocab.txt", "[UNK]\n[CLS]\n\xC3\n");
        expectLoadError(dir.path(), {"vocab.txt", "byte offset 12"});
    }
    const std::vector<std::pair<std::string, std::string>> configs = {
        {"{", "invalid JSON"},
        {"[]", "expected a JSON object"},
        {R"({"do_lower_case": "yes"})", "do_lower_case: expected true or false"},
        {R"({"unk_token": 5})", "unk_token: expected a string"},
        {R"({"sep_token": {"content": "[END]"}})", "'[END]' is not in the vocabulary"},
    };
    for (const auto& [content, problem] : configs) {
        SCOPED_TRACE(content);
        const ScratchDir dir;
        dir.write("vocab.txt", "[UNK]\n[CLS]\n[SEP]\nhello\n");
        dir.write("tokenizer_config.json", content);
        expectLoadError(dir.path(), {problem});
    }
}

TEST(TokenizeErrors, TokenizerJson) {
    const std::string model =
        R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})";
    const auto doc = [&](const std::string& field, const std::string& value) {
        return "{\"model\": " + (field == "model" ? value : model) +
               (field == "model" ? "" : ", \"" + field + "\": " + value) + "}";
    };
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"not json", {"invalid JSON"}},
        {"[1, 2]", {"expected a JSON object"}},
        {"{}", {"missing \"model\""}},
        {doc("model", R"({"type": "Unigram", "vocab": []})"),
         {"model type 'Unigram' is not supported"}},
        {doc("model", R"({"type": "WordPiece", "vocab": {"a": 0}})"), {"'WordPiece'"}},
        {doc("model", R"({"type": "BPE", "vocab": {}, "merges": []})"), {"model.vocab", "empty"}},
        {doc("model", R"({"type": "BPE", "vocab": {"a": 0, "b": 0}})"), {"also given to"}},
        {doc("model", R"({"type": "BPE", "vocab": {"a": 0}, "merges": ["a x"]})"),
         {"model.merges", "'x', which is not in the vocabulary"}},
        {doc("model", R"({"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]})"),
         {"model.merges[0]"}},
        {doc("model", R"({"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]})"), {"pair"}},
        {doc("model", R"({"type": "BPE", "vocab": {"a": 0}, "merges": "a a"})"),
         {"expected an array"}},
        {doc("model", R"({"type": "BPE", "vocab": {"a": 0}, "fuse_unk": 1})"),
         {"fuse_unk", "true or false"}},
        {doc("normalizer", R"({"type": "Precompiled", "precompiled_charsmap": ""})"),
         {"normalizer type 'Precompiled' is not supported"}},
        {doc("normalizer", R"({"type": "Replace", "pattern": {"Regex": "("}, "content": ""})"),
         {"invalid regular expression"}},
        {doc("normalizer", R"({"type": "Replace", "pattern": {"Glob": "*"}, "content": ""})"),
         {"normalizer.pattern"}},
        {doc("normalizer", R"({"normalizers": []})"), {"missing \"type\""}},
        {doc("pre_tokenizer", R"({"type": "BertPreTokenizer"})"),
         {"pre-tokenizer type 'BertPreTokenizer' is not supported"}},
        {doc("pre_tokenizer",
             R"({"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"})"),
         {"unknown split behavior 'Sideways'"}},
        {doc("pre_tokenizer", R"({"type": "Sequence", "pretokenizers": {}})"),
         {"expected an array"}},
        {doc("pre_tokenizer", R"({"type": "Metaspace", "replacement": ""})"),
         {"replacement", "exactly one character"}},
        {doc("pre_tokenizer", R"({"type": "Metaspace", "replacement": "__"})"),
         {"replacement", "exactly one character"}},
        {doc("post_processor",
             R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}],
                                   "special_tokens": {}})"),
         {"special token '<s>' is not in special_tokens"}},
        {doc("post_processor",
             R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}],
                                   "special_tokens": {"<s>": {"id": "<s>", "ids": [7], "tokens": ["<s>"]}}})"),
         {"token id 7 is not in the vocabulary"}},
        {doc("post_processor",
             R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "B"}}]})"),
         {"sequence 'B'"}},
        {doc("post_processor",
             R"({"type": "BertProcessing", "cls": ["[CLS]", 9], "sep": ["[SEP]", 1]})"),
         {"post_processor.cls", "token id 9"}},
        {doc("post_processor", R"({"type": "Whatever"})"),
         {"post-processor type 'Whatever' is not supported"}},
        {doc("added_tokens", R"([{"id": 9, "content": "<x>"}])"),
         {"added_tokens[0]", "out of range"}},
        {doc("added_tokens", R"([{"id": 3, "content": "<x>"}, {"id": 3, "content": "<y>"}])"),
         {"added_tokens[1]", "also given to '<x>'"}},
        {doc("added_tokens", R"([{"content": "<x>"}])"), {"missing \"id\""}},
        {doc("added_tokens", R"({"id": 3})"), {"added_tokens", "expected an array"}},
    };
    for (const auto& [content, fragments] : cases) {
        SCOPED_TRACE(content);
        const ScratchDir dir;
        dir.write("tokenizer.json", content);
        std::vector<std::string> expected = fragments;
        expected.push_back("tokenizer.json");
        expectLoadError(dir.path(), expected);
    }
}

TEST(TokenizeErrors, UnkTokenMissingFromVocabulary) {
    // Hugging Face accepts such a file and fails only when the unknown token is needed.
    const ScratchDir dir;
    dir.write(
        "tokenizer.json",
        R"({"model": {"type": "BPE", "unk_token": "<unk>", "vocab": {"a": 0}, "merges": []}})");
    const auto tokenizer = loadTokenizer(dir.path());
    EXPECT_EQ(idsOf(tokenizer->encode("aa")), (std::vector<int>{0, 0}));
    try {
        tokenizer->encode("ab");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unk_token '<unk>'"), std::string::npos) << e.what();
    }
}

TEST(TokenizeErrors, DeeplyNestedSpecIsRefused) {
    std::string normalizer = R"({"type": "Lowercase"})";
    for (int i = 0; i < 100; ++i)
        normalizer = R"({"type": "Sequence", "normalizers": [)" + normalizer + "]}";
    const ScratchDir dir;
    dir.write("tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                                    "normalizer": )" +
                                    normalizer + "}");
    expectLoadError(dir.path(), {"nested too deeply"});

    // A decoder is only looked at for display hints: deep nesting there must not recurse
    // without bound either.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    dir.write("tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                                    "decoder": )" +
                                    deep + "}");
    EXPECT_EQ(idsOf(loadTokenizer(dir.path())->encode("a")), (std::vector<int>{0}));
}

TEST(TokenizeErrors, DirectoryInPlaceOfFile) {
    const ScratchDir dir;
    std::filesystem::create_directory(dir.path() / "tokenizer.json");
    expectLoadError(dir.path(), {"no tokenizer files"});
}

}  // namespace
}  // namespace qkv::test
