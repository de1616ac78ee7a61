#pragma once
// A short Python script (torch, transformers, numpy) that recomputes one attention matrix QKV
// Lab shows, with Hugging Face transformers: the model loaded with from_pretrained and eager
// attention, the W configuration applied by copying the loaded projections' weights and biases
// in every attention block, the exact token ids QKV Lab ran, and the head's probabilities taken
// from output_attentions. What cannot be done by copying weights (score transforms, the scale
// outside the softmax, masking self, unit keys, K or V from W_Q under grouped-query attention)
// gives a script that says so and stops with SystemExit instead of computing something else.
#include <filesystem>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/model/architecture.h"
#include "core/model/w_configuration.h"

namespace qkv {

// Where from_pretrained finds the model: a Hub id with its revision, or a folder.
struct ModelSource {
    std::string location;  // "gpt2", "EleutherAI/pythia-160m" or a folder's path
    std::string revision;  // of a Hub id ("main", a tag or a commit); empty for a folder
};

// A folder opened from the Hugging Face cache is its Hub id at the snapshot's commit, so the
// script runs on any machine; any other folder is its absolute path.
ModelSource modelSourceOfFolder(const std::filesystem::path& folder);

struct PythonCheck {
    ModelSource model;
    Architecture architecture;
    std::vector<int> ids;        // the input ids QKV Lab ran (an encoder-decoder's source)
    std::string text;            // what was typed, for a comment; empty when ids were given
    std::vector<int> targetIds;  // encoder-decoder models: the decoder's input ids
    std::string targetText;
    AttentionKind kind = AttentionKind::Self;  // Self: the encoder's for encoder-decoder models
    int layer = 0;
    int head = 0;
    WConfiguration config;
};

// The script; throws qkv::Error for a family without a transformers layout
// (ModelFamily::transformers).
std::string pythonSnippet(const PythonCheck& check);

// A Python string literal for UTF-8 `text`: double-quoted, with backslashes, quotes and control
// characters escaped, so it also stays on one line inside a comment.
std::string pythonStringLiteral(const std::string& text);

}  // namespace qkv
