#include "core/report/python_snippet.h"

#include <cstdio>
#include <sstream>

#include "core/io/hub_cache.h"
#include "core/model/applicable_configurations.h"
#include "core/model/model_family.h"
#include "core/report/python_tying.h"
#include "core/util/error.h"

namespace qkv {
namespace {

const char* kindName(AttentionKind kind, bool encoderDecoder) {
    if (!encoderDecoder) return "self-attention";
    switch (kind) {
        case AttentionKind::Self:
            return "encoder self-attention";
        case AttentionKind::DecoderSelf:
            return "decoder self-attention";
        case AttentionKind::Cross:
            return "cross-attention: rows are target tokens, columns source tokens";
    }
    return "";
}

// The model output field that holds the kind's attentions.
const char* attentionsField(AttentionKind kind, bool encoderDecoder) {
    if (!encoderDecoder) return "attentions";
    return kind == AttentionKind::Self          ? "encoder_attentions"
           : kind == AttentionKind::DecoderSelf ? "decoder_attentions"
                                                : "cross_attentions";
}

// "torch.tensor([[1, 2, 3]])", wrapped inside the brackets to stay readable for long inputs.
std::string idTensor(const std::vector<int>& ids) {
    std::string out = "torch.tensor([[";
    size_t lineStart = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
        std::string item = std::to_string(ids[i]);
        if (i + 1 < ids.size()) item += ",";
        if (out.size() - lineStart + item.size() > 92) {
            out += "\n   ";
            lineStart = out.size() - 3;
        } else if (i > 0) {
            out += " ";
        }
        out += item;
    }
    return out + "]])";
}

void validate(const PythonCheck& check) {
    const Architecture& a = check.architecture;
    if (!a.isEncoderDecoder() && check.kind != AttentionKind::Self)
        throw Error(a.family + " has no decoder or cross-attention: it is not encoder-decoder");
    const bool decoder = check.kind != AttentionKind::Self;
    const int layers = decoder ? a.decoderLayers : a.layers;
    if (check.layer < 0 || check.layer >= layers)
        throw Error("layer " + std::to_string(check.layer) + " is not in the model's " +
                    std::to_string(layers) + " layers");
    // A hybrid's layers have heads of their own count (a block without a mixer none).
    const int heads = decoder ? a.decoderHeads : a.headsOf(check.layer);
    if (check.head < 0 || check.head >= heads)
        throw Error("layer " + std::to_string(check.layer) + ", head " +
                    std::to_string(check.head) + " is not in the model: layer " +
                    std::to_string(check.layer) +
                    (heads == 0 ? " has no heads (a " + a.kindName(check.layer) + " layer)"
                                : " has " + std::to_string(heads) + " heads"));
    if (a.isEncoderDecoder() && check.targetIds.empty())
        throw Error("an encoder-decoder model needs the decoder's input ids");
}

void writeHeader(std::ostream& out, const PythonCheck& check) {
    const Architecture& a = check.architecture;
    out << "# Recomputes an attention matrix QKV Lab shows, with Hugging Face transformers.\n";
    out << "#   model          " << check.model.location;
    if (!check.model.revision.empty()) out << " (revision " << check.model.revision << ")";
    out << ", model_type " << a.modelType << "\n";
    out << "#   head           layer " << check.layer << ", head " << check.head << " ("
        << kindName(check.kind, a.isEncoderDecoder()) << ")\n";
    out << "#   configuration  " << check.config.name();
    if (check.config.scaleOutside) out << ", scale outside the softmax";
    if (check.config.maskSelf && check.config.name() != "shared-qk-reformer") out << ", mask self";
    out << "\n";
    if (!check.text.empty())
        out << "#   text           " << pythonStringLiteral(check.text) << "\n";
    if (!check.targetText.empty())
        out << "#   target text    " << pythonStringLiteral(check.targetText) << "\n";
    out << "# Needs torch, transformers and numpy. Run: python3 SCRIPT [matrix.csv]\n";
}

void writeLoad(std::ostream& out, const PythonCheck& check, const HfAttentionLayout& layout) {
    const char* autoClass = autoClassName(layout.modelClass);
    out << "\nimport sys\n\nimport numpy as np\nimport torch\nfrom transformers import "
        << autoClass << "\n\n";
    out << "model = " << autoClass << ".from_pretrained(\n    "
        << pythonStringLiteral(check.model.location);
    if (!check.model.revision.empty())
        out << ", revision=" << pythonStringLiteral(check.model.revision);
    out << ", attn_implementation=\"eager\")\n";
    out << "model = model.float().eval()  # float32 as QKV Lab computes, no dropout\n\n";
    out << "# The token ids QKV Lab ran, not re-tokenized: no tokenizer option can differ.\n";
    out << "input_ids = " << idTensor(check.ids) << "\n";
    if (check.architecture.isEncoderDecoder())
        out << "decoder_input_ids = " << idTensor(check.targetIds) << "\n";
    out << "\n";
}

void writeRun(std::ostream& out, const PythonCheck& check) {
    const bool encoderDecoder = check.architecture.isEncoderDecoder();
    out << "with torch.no_grad():\n    outputs = model(input_ids=input_ids, ";
    if (encoderDecoder) out << "decoder_input_ids=decoder_input_ids, ";
    out << "output_attentions=True)\n";
    out << "# Softmax probabilities, rows are queries and columns keys.\n";
    // transformers records what its attention modules return: a hybrid's tuple holds its
    // softmax layers alone, so the index counts those before the layer.
    int index = check.layer;
    if (!encoderDecoder)
        for (int l = 0; l < check.layer; ++l)
            index -= check.architecture.mixerOf(l) != Mixer::Attention;
    out << "matrix = outputs." << attentionsField(check.kind, encoderDecoder) << "[" << index
        << "][0, " << check.head << "].numpy()\n";
    out << "np.set_printoptions(precision=4, suppress=True, linewidth=160)\n";
    out << "print(matrix)\n";
    out << "if len(sys.argv) > 1:\n    np.savetxt(sys.argv[1], matrix, delimiter=\",\")\n";
}

}  // namespace

ModelSource modelSourceOfFolder(const std::filesystem::path& folder) {
    if (auto id = hubIdOfSnapshot(folder)) {
        const std::filesystem::path snapshot =
            folder.filename().empty() ? folder.parent_path() : folder;
        return {*id, snapshot.filename().string()};
    }
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(folder, ec);
    if (ec) absolute = folder;
    absolute = absolute.lexically_normal();
    if (absolute.filename().empty()) absolute = absolute.parent_path();
    return {absolute.string(), ""};
}

std::string pythonStringLiteral(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);  // UTF-8 passes through: Python 3 source is UTF-8
        }
    }
    return out + "\"";
}

std::string pythonSnippet(const PythonCheck& check) {
    if (check.architecture.bilinearHeads)
        throw Error(
            "a full-bilinear model of QKV Lab's training lab has no Hugging Face transformers "
            "class to check it against");
    const ModelFamily* family = findFamilyNamed(check.architecture.family);
    const std::optional<HfAttentionLayout> layout =
        family ? family->transformers : std::optional<HfAttentionLayout>();
    if (!layout)
        throw Error("no Hugging Face transformers layout is known for family \"" +
                    check.architecture.family + "\"");
    validate(check);
    requireConfigurationApplies(check.architecture, check.config);
    std::ostringstream out;
    writeHeader(out, check);
    std::vector<std::string> reasons = untranslatableParts(check.config, check.architecture);
    if (check.architecture.mixerOf(check.layer) == Mixer::GatedDeltaNet)
        reasons.insert(
            reasons.begin(),
            "layer " + std::to_string(check.layer) +
                " is a Gated DeltaNet layer: transformers returns no attention matrix "
                "for it (outputs.attentions holds the softmax layers alone); its implicit "
                "attention is the matrix A with core = A v that QKV Lab computes from the "
                "layer's q, k, v, beta and decay");
    if (check.architecture.mixerOf(check.layer) == Mixer::Mamba2)
        reasons.insert(reasons.begin(),
                       "layer " + std::to_string(check.layer) +
                           " is a Mamba-2 layer: transformers returns no attention matrix for it; "
                           "its implicit attention is the matrix M with y = M x + D x that QKV Lab "
                           "computes from the layer's C, B, x, step sizes and A");
    if (!reasons.empty()) {
        writeRefusal(out, check.config, reasons);
        return out.str();
    }
    writeLoad(out, check, *layout);
    writeTying(out, check.config, check.architecture, *layout);
    writeRun(out, check);
    return out.str();
}

}  // namespace qkv
