#include "core/model/hf_attention_layout.h"

namespace qkv {

const char* autoClassName(HfModelClass modelClass) {
    switch (modelClass) {
        case HfModelClass::CausalLm:
            return "AutoModelForCausalLM";
        case HfModelClass::Encoder:
            return "AutoModel";
        case HfModelClass::Seq2SeqLm:
            return "AutoModelForSeq2SeqLM";
    }
    return "AutoModel";
}

}  // namespace qkv
