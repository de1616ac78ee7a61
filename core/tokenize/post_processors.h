#pragma once
// tokenizer.json post-processors: the special tokens put around a single sequence. Supported
// "type"s: TemplateProcessing (its "single" template), RobertaProcessing and BertProcessing
// (cls + sequence + sep), ByteLevel (changes offsets only: nothing to do here) and Sequence of
// these. Others are refused with a qkv::Error naming the file and the type.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace qkv {

class PostProcessor {
  public:
    // The vocabulary piece of an id; throws qkv::Error naming `where` for an id it lacks.
    using PieceLookup = std::function<std::string(int id, const std::string& where)>;

    PostProcessor() = default;
    // `where` names the value for errors, e.g. "<file>: post_processor"; null spec: no-op.
    PostProcessor(const nlohmann::json& spec, const std::string& where, const PieceLookup& pieceOf);

    // Adds the special tokens (special = true, empty span at the start of the text or, after
    // the sequence, at its end) to the tokens of a text of `textSize` bytes.
    void apply(std::vector<Token>& tokens, std::size_t textSize) const;

  private:
    struct Part {
        bool sequence = false;      // the tokens of the text itself
        std::vector<Token> tokens;  // otherwise these special tokens
    };
    void parse(const nlohmann::json& spec, const std::string& where, const PieceLookup& pieceOf,
               int depth);

    std::vector<std::vector<Part>> m_steps;  // applied in order
};

}  // namespace qkv
