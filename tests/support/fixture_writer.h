#pragma once
// Builds checkpoint folders for tests: raw safetensors bytes (valid or deliberately broken) and
// tiny random GPT-2 / BERT / Llama models that need nothing from ../shared.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace qkv::test {

// A temporary folder removed with the object.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    const std::filesystem::path& path() const { return m_path; }

  private:
    std::filesystem::path m_path;
};

// Writes `u64 header length | header | data` exactly as given (for malformed-file tests).
void writeRawSafetensors(const std::filesystem::path& file, const std::string& header,
                         const std::vector<std::uint8_t>& data);

struct FixtureTensor {
    std::vector<std::int64_t> shape;
    std::vector<float> values;
};

// A valid float32 safetensors file.
void writeSafetensors(const std::filesystem::path& file,
                      const std::map<std::string, FixtureTensor>& tensors);

void writeText(const std::filesystem::path& file, const std::string& text);

// What opening a (deliberately broken) checkpoint folder says: Model::open's error message, or
// "(opened)" when it opened.
std::string openingError(const std::filesystem::path& dir);

// Tiny random checkpoints keyed as the Hub's files (GPT-2 without prefix, BERT under "bert.",
// Llama under "model."), with config.json and no tokenizer files. Deterministic per seed.
struct TinyModelSpec {
    int layers = 2;
    int heads = 4;
    int kvHeads = 4;  // Llama only
    int dModel = 32;
    int vocab = 50;
    int context = 16;
    unsigned seed = 7;
};
std::map<std::string, FixtureTensor> tinyGpt2Tensors(const TinyModelSpec& spec);
void writeTinyGpt2(const std::filesystem::path& dir, const TinyModelSpec& spec = {});
void writeTinyBert(const std::filesystem::path& dir, const TinyModelSpec& spec = {});
void writeTinyLlama(const std::filesystem::path& dir, const TinyModelSpec& spec = {});
// BART under "model." (plus final_logits_bias): `layers` encoder and decoder layers, encoder MLP
// width 2·d_model, decoder 3·d_model (so a mix-up of the two shows), gelu, tied head.
std::map<std::string, FixtureTensor> tinyBartTensors(const TinyModelSpec& spec);
void writeTinyBart(const std::filesystem::path& dir, const TinyModelSpec& spec = {});
// OPT-350m's layout under "model.decoder.": token embeddings d_model/2 wide with project_in and
// project_out, post-LayerNorm layers (do_layer_norm_before: false), no final norm, MLP width
// 3·d_model, ReLU, tied head.
std::map<std::string, FixtureTensor> tinyOpt350Tensors(const TinyModelSpec& spec);
void writeTinyOpt350(const std::filesystem::path& dir, const TinyModelSpec& spec = {});

enum class Stored { F16, BF16 };

// Copies a checkpoint folder's config.json and writes its tensors rounded to `dtype`: as that
// dtype into `halfDir`, and as float32 holding the rounded values into `floatDir`.
void writeRounded(const std::filesystem::path& source, Stored dtype,
                  const std::filesystem::path& halfDir, const std::filesystem::path& floatDir);

}  // namespace qkv::test
