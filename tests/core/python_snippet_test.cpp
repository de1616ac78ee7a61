// The Python check scripts (core/report/python_snippet.h): what they load, the ids and head they
// name, the copies each configuration makes in each family's layout, the refusals, and that
// python3 compiles every one of them.
#include "core/report/python_snippet.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/model/model.h"
#include "core/model/model_family.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/python3.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(contains(text, part)) << "missing: " << (part)
#define EXPECT_LACKS(text, part) EXPECT_FALSE(contains(text, part)) << "present: " << (part)

Architecture openedArchitecture(void (*write)(const std::filesystem::path&,
                                              const test::TinyModelSpec&),
                                const test::TinyModelSpec& spec = {}) {
    test::TempDir dir;
    write(dir.path(), spec);
    return Model::open(dir.path())->architecture();
}

PythonCheck checkOf(const Architecture& a, const std::string& config) {
    PythonCheck check;
    check.model = {"gpt2", "main"};
    check.architecture = a;
    check.ids = {464, 3807, 373, 257, 3091};
    check.text = "The movie was a box";
    if (a.isEncoderDecoder()) check.targetIds = {a.decoderStartToken, 7, 9};
    check.layer = a.layers - 1;
    check.head = a.heads - 1;
    check.config = WConfiguration::parse(config);
    return check;
}

// Hand-made descriptions of the families the tests' fixtures do not write.
Architecture described(const std::string& family, int heads, int kvHeads, int headDim,
                       int decoderLayers = 0) {
    Architecture a;
    a.family = a.modelType = family;
    a.layers = 2;
    a.heads = heads;
    a.kvHeads = kvHeads;
    a.headDim = headDim;
    a.dModel = heads * headDim;
    a.decoderLayers = decoderLayers;
    a.decoderHeads = heads;
    a.decoderHeadDim = headDim;
    return a;
}

TEST(PythonSnippet, Gpt2SharedQkCopiesTheQueryColumnBlockIntoTheKeys) {
    const Architecture gpt2 = openedArchitecture(test::writeTinyGpt2);
    const std::string script = pythonSnippet(checkOf(gpt2, "shared-qk"));
    EXPECT_CONTAINS(script, "from transformers import AutoModelForCausalLM\n");
    EXPECT_CONTAINS(script,
                    "AutoModelForCausalLM.from_pretrained(\n    \"gpt2\", revision=\"main\", "
                    "attn_implementation=\"eager\")");
    EXPECT_CONTAINS(script, "input_ids = torch.tensor([[464, 3807, 373, 257, 3091]])\n");
    EXPECT_CONTAINS(script, "#   text           \"The movie was a box\"\n");
    EXPECT_CONTAINS(script, "#   head           layer 1, head 3 (self-attention)\n");
    EXPECT_CONTAINS(script, "#   configuration  shared-qk\n");
    // c_attn's column blocks, Conv1D [in, 3·d].
    EXPECT_CONTAINS(script, "D = 32  # n_embd\n");
    EXPECT_CONTAINS(script, "w, b = block.c_attn.weight, block.c_attn.bias\n");
    EXPECT_CONTAINS(script, "return [[w[:, i * D:(i + 1) * D], b[i * D:(i + 1) * D]] for i in");
    EXPECT_CONTAINS(script, "blocks = [m for m in model.modules() if hasattr(m, \"c_attn\")]\n");
    EXPECT_CONTAINS(script, "assert len(blocks) == 2,");
    EXPECT_CONTAINS(script, "with torch.no_grad():\n    for block in blocks:\n");
    EXPECT_CONTAINS(script, "        learned_q = [t.clone() for t in q]\n");
    EXPECT_CONTAINS(script, "        assign(k, learned_q)  # K := Q\n");
    EXPECT_LACKS(script, "assign(v,");
    EXPECT_LACKS(script, "assign(q,");
    EXPECT_CONTAINS(script, "outputs = model(input_ids=input_ids, output_attentions=True)\n");
    EXPECT_CONTAINS(script, "matrix = outputs.attentions[1][0, 3].numpy()\n");
    EXPECT_LACKS(script, "SystemExit");
}

TEST(PythonSnippet, LearnedCopiesNothing) {
    const std::string script =
        pythonSnippet(checkOf(openedArchitecture(test::writeTinyGpt2), "learned"));
    EXPECT_CONTAINS(script, "# learned: the checkpoint's own W_Q, W_K and W_V.\n");
    EXPECT_LACKS(script, "assign(");
    EXPECT_CONTAINS(script, "output_attentions=True");
}

TEST(PythonSnippet, CustomAssignmentCopiesEachMovedSlotFromTheLoadedWeights) {
    const Architecture gpt2 = openedArchitecture(test::writeTinyGpt2);
    std::string script = pythonSnippet(checkOf(gpt2, "q=K,k=Q,v=V"));
    EXPECT_CONTAINS(script, "#   configuration  q=K,k=Q,v=V\n");
    // Both sources cloned before either slot is overwritten: a swap, not K := Q := K.
    EXPECT_CONTAINS(script,
                    "        learned_k = [t.clone() for t in k]\n"
                    "        learned_q = [t.clone() for t in q]\n"
                    "        assign(q, learned_k)  # Q := K\n"
                    "        assign(k, learned_q)  # K := Q\n");
    EXPECT_LACKS(script, "assign(v,");

    script = pythonSnippet(checkOf(gpt2, "single-w"));
    EXPECT_CONTAINS(script,
                    "        assign(k, learned_q)  # K := Q\n"
                    "        assign(v, learned_q)  # V := Q\n");
    script = pythonSnippet(checkOf(gpt2, "tied-kv"));
    EXPECT_CONTAINS(script, "        assign(v, learned_k)  # V := K\n");
}

TEST(PythonSnippet, GroupedQueryKeysFromWQueryAreRefusedInACommentAndSystemExit) {
    test::TinyModelSpec spec;
    spec.kvHeads = 2;
    const Architecture llama = openedArchitecture(test::writeTinyLlama, spec);
    ASSERT_EQ(llama.kvGroup(), 2);
    for (const char* config : {"shared-qk", "single-w", "q=Q,k=K,v=Q"}) {
        const std::string script = pythonSnippet(checkOf(llama, config));
        SCOPED_TRACE(config);
        EXPECT_CONTAINS(script, "# QKV Lab's " + WConfiguration::parse(config).name() +
                                    " cannot be reproduced by copying weights in transformers:");
        EXPECT_CONTAINS(script, "with grouped-query attention the ");
        EXPECT_CONTAINS(script, "projection has 2 heads for 4 query heads");
        EXPECT_CONTAINS(script, "\nraise SystemExit(\"");
        EXPECT_LACKS(script, "from_pretrained");  // nothing runs before it stops
    }
    // What fits is copied: V := K has the key's shape; Q := K repeats each key head per group.
    const std::string tied = pythonSnippet(checkOf(llama, "tied-kv"));
    EXPECT_LACKS(tied, "SystemExit");
    EXPECT_CONTAINS(tied, "linears = (block.q_proj, block.k_proj, block.v_proj)\n");
    EXPECT_CONTAINS(tied, "assign(v, learned_k)  # V := K\n");
    const std::string fromKeys = pythonSnippet(checkOf(llama, "q=K,k=K,v=V"));
    EXPECT_CONTAINS(fromKeys, "HEAD_DIM, GROUP = 8, 2");
    EXPECT_CONTAINS(fromKeys, "assign(q, per_query_head(learned_k))  # Q := K\n");
}

TEST(PythonSnippet, ScoreTransformsAndAttentionOptionsAreRefused) {
    const Architecture gpt2 = openedArchitecture(test::writeTinyGpt2);
    const std::pair<const char*, const char*> cases[] = {
        {"sym-scores", "sym-scores, S := (S + S^T) / 2 before the mask, changes the attention"},
        {"skew-scores", "skew-scores, S := (S - S^T) / 2 before the mask"},
        {"scale-outside", "the 1/sqrt(d_k) scale after the softmax changes the attention"},
        {"shared-qk-reformer", "unit-length keys"},
    };
    for (const auto& [config, reason] : cases) {
        SCOPED_TRACE(config);
        const std::string script = pythonSnippet(checkOf(gpt2, config));
        EXPECT_CONTAINS(script, reason);
        EXPECT_CONTAINS(script, "raise SystemExit(");
        EXPECT_LACKS(script, "from_pretrained");
    }
    PythonCheck masked = checkOf(gpt2, "shared-qk");
    masked.config.maskSelf = true;
    const std::string script = pythonSnippet(masked);
    EXPECT_CONTAINS(script, "#   configuration  shared-qk, mask self\n");
    EXPECT_CONTAINS(script, "masking each token's attention to itself");
}

TEST(PythonSnippet, FusedLayoutsOfGptNeoxAndPhi3) {
    const std::string neox = pythonSnippet(checkOf(described("gpt_neox", 4, 4, 8), "shared-qk"));
    EXPECT_CONTAINS(neox, "HEADS, HEAD_DIM = 4, 8\n");
    EXPECT_CONTAINS(neox, "w = block.query_key_value.weight.view(HEADS, 3, HEAD_DIM, -1)\n");
    EXPECT_CONTAINS(neox, "b = block.query_key_value.bias.view(HEADS, 3, HEAD_DIM)\n");
    EXPECT_CONTAINS(neox, "return [[w[:, i], b[:, i]] for i in range(3)]\n");

    const std::string phi3 = pythonSnippet(checkOf(described("phi3", 4, 2, 8), "tied-kv"));
    EXPECT_CONTAINS(phi3, "Q_ROWS, KV_ROWS = 32, 16");
    EXPECT_CONTAINS(phi3,
                    "return [[w[:Q_ROWS]], [w[Q_ROWS:Q_ROWS + KV_ROWS]], [w[Q_ROWS + "
                    "KV_ROWS:]]]\n");
    EXPECT_CONTAINS(phi3, "assign(v, learned_k)  # V := K\n");
}

TEST(PythonSnippet, EncodersAndEncoderDecodersUseTheirAutoClassAndOutputs) {
    const std::string bert =
        pythonSnippet(checkOf(openedArchitecture(test::writeTinyBert), "shared-qk"));
    EXPECT_CONTAINS(bert, "from transformers import AutoModel\n");
    EXPECT_CONTAINS(bert, "linears = (block.query, block.key, block.value)\n");
    EXPECT_CONTAINS(bert, "outputs.attentions[1][0, 3]");

    const std::string distilbert =
        pythonSnippet(checkOf(described("distilbert", 4, 4, 8), "shared-qk"));
    EXPECT_CONTAINS(distilbert, "linears = (block.q_lin, block.k_lin, block.v_lin)\n");

    const Architecture t5 = described("t5", 4, 4, 8, 3);
    PythonCheck cross = checkOf(t5, "shared-qk");
    cross.kind = AttentionKind::Cross;
    cross.layer = 2;
    cross.targetText = "Das Haus";
    const std::string script = pythonSnippet(cross);
    EXPECT_CONTAINS(script, "from transformers import AutoModelForSeq2SeqLM\n");
    EXPECT_CONTAINS(script, "decoder_input_ids = torch.tensor([[0, 7, 9]])\n");
    EXPECT_CONTAINS(script, "#   target text    \"Das Haus\"\n");
    EXPECT_CONTAINS(script, "(cross-attention: rows are target tokens, columns source tokens)");
    EXPECT_CONTAINS(script, "(self- and cross-attention)");
    EXPECT_CONTAINS(script, "linears = (block.q, block.k, block.v)\n");
    EXPECT_CONTAINS(script, "hasattr(m, \"q\")");
    EXPECT_CONTAINS(script, "assert len(blocks) == 8,");  // 2 encoder + 3 · 2 decoder blocks
    EXPECT_CONTAINS(script,
                    "outputs = model(input_ids=input_ids, decoder_input_ids=decoder_input_ids, "
                    "output_attentions=True)\n");
    EXPECT_CONTAINS(script, "matrix = outputs.cross_attentions[2][0, 3].numpy()\n");
    cross.kind = AttentionKind::DecoderSelf;
    EXPECT_CONTAINS(pythonSnippet(cross), "outputs.decoder_attentions[2][0, 3]");
    cross.kind = AttentionKind::Self;
    cross.layer = 1;
    EXPECT_CONTAINS(pythonSnippet(cross), "outputs.encoder_attentions[1][0, 3]");
}

// Except the training lab's own full-bilinear model, which no transformers class computes.
TEST(PythonSnippet, EveryFamilyHasATransformersLayout) {
    for (const ModelFamily& family : modelFamilies()) {
        if (family.name == "qkvlab-full-bilinear") {
            EXPECT_FALSE(family.transformers.has_value());
            continue;
        }
        EXPECT_TRUE(family.transformers.has_value()) << family.name;
    }
    Architecture unknown = described("mamba", 4, 4, 8);
    EXPECT_THROW(pythonSnippet(checkOf(unknown, "learned")), Error);
}

TEST(PythonSnippet, HeadsOutsideTheStackAreErrors) {
    const Architecture gpt2 = openedArchitecture(test::writeTinyGpt2);
    PythonCheck check = checkOf(gpt2, "learned");
    check.head = 4;
    EXPECT_THROW(pythonSnippet(check), Error);
    check.head = 0;
    check.kind = AttentionKind::Cross;
    EXPECT_THROW(pythonSnippet(check), Error);
}

// Nemotron-H: a Mamba-2 layer's head gets the reason transformers has no matrix for it, a block
// without heads is refused naming its count, and no configuration copies modules in a model
// whose Mamba-2 layers keep C, B and x in one in_proj.
TEST(PythonSnippet, MambaLayersAndBlocksWithoutHeadsAreExplained) {
    QKV_REQUIRE_SHARED(shared);
    const Architecture a =
        loadArchitecture(shared / "models" / "nemotron_h-random-tiny" / "config.json");
    PythonCheck check = checkOf(a, "learned");
    check.layer = 0;  // mamba2, 8 heads
    check.head = 7;
    EXPECT_CONTAINS(pythonSnippet(check), "layer 0 is a Mamba-2 layer");
    check.layer = 1;  // moe: no heads
    check.head = 0;
    try {
        pythonSnippet(check);
        ADD_FAILURE() << "a head of a block without heads was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 1 has no heads (a moe layer)"),
                  std::string::npos)
            << e.what();
    }
    check = checkOf(a, "shared-qk");
    check.layer = 3;  // attention
    check.head = 3;
    EXPECT_CONTAINS(pythonSnippet(check), "a Mamba-2 layer's C, B and x are blocks of one in_proj");
}

// LFM2: transformers' outputs.attentions holds the softmax layers alone (it records its
// attention modules), so layer 4 is its entry 1; a short convolution has no heads; no
// configuration copies modules while B, C and x are rows of one in_proj.
TEST(PythonSnippet, HybridsIndexTheirSoftmaxLayersAndShortConvolutionsHaveNoHeads) {
    QKV_REQUIRE_SHARED(shared);
    const Architecture a = loadArchitecture(shared / "models" / "lfm2-random-tiny" / "config.json");
    PythonCheck check = checkOf(a, "learned");
    check.layer = 4;  // conv, conv, attention, conv, attention
    check.head = 1;
    EXPECT_CONTAINS(pythonSnippet(check), "matrix = outputs.attentions[1][0, 1]");
    check.layer = 3;
    try {
        pythonSnippet(check);
        ADD_FAILURE() << "a head of a short convolution was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 3 has no heads (a short_conv layer)"),
                  std::string::npos)
            << e.what();
    }
    check = checkOf(a, "tied-kv");
    check.layer = 2;
    EXPECT_CONTAINS(pythonSnippet(check), "a short convolution's B, C and x are row blocks");
}

TEST(PythonSnippet, FoldersAndCacheSnapshots) {
    test::TempDir dir;
    const auto snapshot = dir.path() / "models--EleutherAI--pythia-160m" / "snapshots" /
                          "0123456789abcdef0123456789abcdef01234567";
    std::filesystem::create_directories(snapshot);
    const ModelSource hub = modelSourceOfFolder(snapshot);
    EXPECT_EQ(hub.location, "EleutherAI/pythia-160m");
    EXPECT_EQ(hub.revision, "0123456789abcdef0123456789abcdef01234567");
    const ModelSource folder = modelSourceOfFolder(dir.path() / "mine" / "");
    EXPECT_EQ(folder.location, (dir.path() / "mine").string());
    EXPECT_TRUE(folder.revision.empty());
}

TEST(PythonSnippet, StringLiteralsEscapeWhatWouldBreakALine) {
    EXPECT_EQ(pythonStringLiteral("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
    EXPECT_EQ(pythonStringLiteral("one\ntwo\tx\r\x01"), "\"one\\ntwo\\tx\\r\\x01\"");
    EXPECT_EQ(pythonStringLiteral("Größe →"), "\"Größe →\"");
}

// Every script, for each layout, configuration and refusal, is Python that compiles.
TEST(PythonSnippet, Python3CompilesEveryScript) {
    QKV_REQUIRE_PYTHON3();
    test::TempDir dir;
    const Architecture architectures[] = {
        openedArchitecture(test::writeTinyGpt2),
        openedArchitecture(test::writeTinyBert),
        described("llama", 4, 2, 8),
        described("gpt_neox", 4, 4, 8),
        described("phi3", 4, 2, 8),
        described("t5", 4, 4, 8, 2),
        described("bart", 4, 4, 8, 2),
    };
    std::vector<std::string> names;
    for (const char* config : {"learned", "shared-qk", "tied-kv", "single-w", "sym-scores",
                               "q=K,k=V,v=Q", "q=V,k=K,v=K", "shared-qk-reformer"})
        for (const Architecture& a : architectures) {
            PythonCheck check = checkOf(a, config);
            check.text = "quotes \" and \\ and\nnewlines";
            check.ids.assign(300, 11);  // wrapped over lines
            const auto path =
                dir.path() / ("check" + std::to_string(names.size()) + "_" + a.family + ".py");
            std::ofstream(path) << pythonSnippet(check);
            names.push_back(path.string());
        }
    std::vector<std::string> arguments = {"-m", "py_compile"};
    arguments.insert(arguments.end(), names.begin(), names.end());
    const test::PythonRun run = test::runPython3(arguments, dir.path() / "compile.log");
    EXPECT_EQ(run.exitCode, 0) << run.output;
}

}  // namespace
}  // namespace qkv
