#include "core/model/rotary.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numbers>
#include <sstream>

namespace qkv {
namespace {

// HF's default inverse frequencies, 1 / theta^(2i / dims), computed in float32 as torch does
// (the exponent is a float32 quotient).
std::vector<double> defaultInverse(double theta, int dims) {
    std::vector<double> inverse(dims / 2);
    for (int i = 0; i < dims / 2; ++i) {
        const float exponent = static_cast<float>(2 * i) / static_cast<float>(dims);
        inverse[i] = static_cast<float>(1.0 / std::pow(theta, static_cast<double>(exponent)));
    }
    return inverse;
}

// Llama 3.1: long wavelengths are divided by the factor, short ones kept, the band between
// interpolated by how many original contexts fit in the wavelength.
void llama3(const RopeScaling& s, std::vector<double>& inverse) {
    const double lowWavelength = s.originalContext / s.lowFrequencyFactor;
    const double highWavelength = s.originalContext / s.highFrequencyFactor;
    for (double& f : inverse) {
        const double wavelength = 2.0 * std::numbers::pi / f;
        if (wavelength > lowWavelength) {
            f /= s.factor;
        } else if (wavelength >= highWavelength) {
            const double smooth = (s.originalContext / wavelength - s.lowFrequencyFactor) /
                                  (s.highFrequencyFactor - s.lowFrequencyFactor);
            f = (1.0 - smooth) * f / s.factor + smooth * f;
        }
    }
}

// YaRN: dimensions that turn fewer than beta_slow times over the original context are
// interpolated (divided by the factor), those turning more than beta_fast times kept, a linear
// ramp between. Returns the attention factor on cos and sin.
double yarn(const RopeScaling& s, double theta, int dims, int originalContext,
            std::vector<double>& inverse) {
    auto correctionDim = [&](double rotations) {
        return dims * std::log(originalContext / (rotations * 2.0 * std::numbers::pi)) /
               (2.0 * std::log(theta));
    };
    double low = correctionDim(s.betaFast), high = correctionDim(s.betaSlow);
    if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, dims - 1.0);
    if (low == high) high += 0.001;  // HF's guard against a zero-width ramp
    for (int i = 0; i < static_cast<int>(inverse.size()); ++i) {
        const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
        const double extrapolation = 1.0 - ramp;  // the share that keeps its frequency
        inverse[i] = inverse[i] / s.factor * (1.0 - extrapolation) + inverse[i] * extrapolation;
    }
    if (s.attentionFactor > 0.0) return s.attentionFactor;
    auto mscale = [&](double m) {
        return s.factor <= 1.0 ? 1.0 : 0.1 * m * std::log(s.factor) + 1.0;
    };
    if (s.mscale != 0.0 && s.mscaleAllDim != 0.0) return mscale(s.mscale) / mscale(s.mscaleAllDim);
    return mscale(1.0);
}

}  // namespace

const char* ropeTypeName(RopeType type) {
    switch (type) {
        case RopeType::Default:
            return "default";
        case RopeType::Linear:
            return "linear";
        case RopeType::Dynamic:
            return "dynamic";
        case RopeType::Yarn:
            return "yarn";
        case RopeType::LongRope:
            return "longrope";
        case RopeType::Llama3:
            return "llama3";
        case RopeType::Proportional:
            return "proportional";
        case RopeType::FrequencyFactors:
            return "frequency_factors";
    }
    return "default";
}

int Rotary::longestInput() const {
    if (scaling.type == RopeType::Dynamic)
        return static_cast<int>(std::min(context * std::max(scaling.factor, 1.0), 1e9));
    return context;
}

bool Rotary::dependsOnLength() const {
    return (scaling.type == RopeType::Dynamic && scaling.alpha == 0.0) ||
           scaling.type == RopeType::LongRope;
}

RotaryFrequencies Rotary::frequencies(int tokens) const {
    const RopeScaling& s = scaling;
    double base = theta;
    if (s.type == RopeType::Dynamic && s.alpha > 0.0) {
        base = theta * std::pow(s.alpha, static_cast<double>(dims) / (dims - 2));
    } else if (s.type == RopeType::Dynamic && tokens > context) {
        // NTK: the base grows with the input's length beyond the context (HF recomputes it for
        // sequences longer than any seen, from the model's initial state in each forward here).
        const double grown = s.factor * tokens / context - (s.factor - 1.0);
        base = theta * std::pow(grown, static_cast<double>(dims) / (dims - 2));
    }
    std::vector<double> inverse = defaultInverse(base, dims);
    double scale = 1.0;
    switch (s.type) {
        case RopeType::Default:
        case RopeType::Dynamic:
            break;
        case RopeType::Linear:
            for (double& f : inverse) f /= s.factor;
            break;
        case RopeType::Proportional:
            // The turning pairs keep the full head's frequencies (defaultInverse over dims).
            for (int i = 0; i < static_cast<int>(inverse.size()); ++i)
                inverse[i] = i < s.rotatedPairs ? inverse[i] / s.factor : 0.0;
            break;
        case RopeType::Llama3:
            llama3(s, inverse);
            break;
        case RopeType::FrequencyFactors:
            for (size_t i = 0; i < inverse.size(); ++i) inverse[i] /= s.frequencyFactors[i];
            break;
        case RopeType::Yarn:
            scale =
                yarn(s, theta, dims, s.originalContext > 0 ? s.originalContext : context, inverse);
            break;
        case RopeType::LongRope: {
            const int original = s.originalContext > 0 ? s.originalContext : context;
            const std::vector<double>& ext = tokens > original ? s.longFactors : s.shortFactors;
            for (size_t i = 0; i < inverse.size(); ++i) inverse[i] /= ext[i];
            scale =
                s.attentionFactor > 0.0 ? s.attentionFactor
                : s.factor <= 1.0
                    ? 1.0
                    : std::sqrt(1.0 + std::log(s.factor) / std::log(static_cast<double>(original)));
            break;
        }
    }
    RotaryFrequencies f;
    f.inverse.assign(inverse.begin(), inverse.end());
    f.scale = static_cast<float>(scale);
    f.interleaved = interleaved;
    return f;
}

std::string Rotary::describe() const {
    std::ostringstream out;
    out << std::setprecision(12) << "rotary θ=" << theta;  // 1000000, not 1e+06
    if (scaling.type != RopeType::Default) {
        out << ", " << ropeTypeName(scaling.type);
        if (scaling.type == RopeType::Proportional)
            out << " " << scaling.rotatedPairs << " of " << dims / 2 << " pairs";
        else if (scaling.type != RopeType::LongRope && scaling.type != RopeType::FrequencyFactors)
            out << " ×" << scaling.factor;
        if (scaling.alpha > 0.0) out << ", α=" << scaling.alpha;
    }
    if (interleaved) out << ", interleaved pairs";
    return out.str();
}

namespace {

RopeType ropeTypeNamed(const ConfigReader& r, const std::string& name) {
    for (RopeType t :
         {RopeType::Default, RopeType::Linear, RopeType::Dynamic, RopeType::Yarn,
          RopeType::LongRope, RopeType::Llama3, RopeType::Proportional, RopeType::FrequencyFactors})
        if (name == ropeTypeName(t)) return t;
    r.fail("unsupported \"rope_type\" \"" + name +
           "\" (QKV Lab reads default, linear, dynamic, yarn, longrope, llama3, "
           "proportional and frequency_factors)");
}

std::vector<double> factorList(const ConfigReader& s, const char* key, int pairs) {
    std::vector<double> list = s.numbers(key);
    if (static_cast<int>(list.size()) != pairs)
        s.fail("\"" + std::string(key) + "\" has " + std::to_string(list.size()) +
               " factors; the rotary embedding rotates " + std::to_string(pairs) +
               " pairs of dimensions");
    for (double f : list)
        if (!(f > 0.0)) s.fail("\"" + std::string(key) + "\" factors must be positive");
    return list;
}

RopeScaling readScaling(const ConfigReader& r, const ConfigReader& s, int dims, int context) {
    RopeScaling scaling;
    scaling.type = ropeTypeNamed(s, s.stringOr("rope_type", s.stringOr("type", "default")));
    auto requireFactor = [&] {
        scaling.factor = s.number("factor");
        if (!(scaling.factor > 0.0)) s.fail("\"factor\" must be positive");
    };
    switch (scaling.type) {
        case RopeType::Default:
            break;
        case RopeType::Proportional:
            scaling.factor = s.numberOr("factor", 1.0f);
            if (!(scaling.factor > 0.0)) s.fail("\"factor\" must be positive");
            break;
        case RopeType::Linear:
            requireFactor();
            break;
        case RopeType::Dynamic:
            requireFactor();
            scaling.alpha = s.numberOr("alpha", 0.0f);
            break;
        case RopeType::Llama3:
            requireFactor();
            scaling.lowFrequencyFactor = s.number("low_freq_factor");
            scaling.highFrequencyFactor = s.number("high_freq_factor");
            scaling.originalContext = s.positiveInt("original_max_position_embeddings");
            if (!(scaling.highFrequencyFactor > scaling.lowFrequencyFactor))
                s.fail("\"high_freq_factor\" must exceed \"low_freq_factor\"");
            break;
        case RopeType::Yarn:
            requireFactor();
            scaling.attentionFactor = s.numberOr("attention_factor", 0.0f);
            if (s.has("beta_fast")) scaling.betaFast = s.number("beta_fast");
            if (s.has("beta_slow")) scaling.betaSlow = s.number("beta_slow");
            scaling.mscale = s.numberOr("mscale", 0.0f);
            scaling.mscaleAllDim = s.numberOr("mscale_all_dim", 0.0f);
            scaling.truncate = s.boolOr("truncate", true);
            // transformers 5 keeps the factor as given beside the original context (4.x took
            // their ratio instead; the Hub's YaRN models give both equal).
            if (s.has("original_max_position_embeddings"))
                scaling.originalContext = s.positiveInt("original_max_position_embeddings");
            break;
        case RopeType::FrequencyFactors:
            scaling.frequencyFactors = factorList(s, "factors", dims / 2);
            break;
        case RopeType::LongRope:
            scaling.shortFactors = factorList(s, "short_factor", dims / 2);
            scaling.longFactors = factorList(s, "long_factor", dims / 2);
            scaling.attentionFactor = s.numberOr("attention_factor", 0.0f);
            // Phi-3 keeps original_max_position_embeddings beside max_position_embeddings; the
            // factor is their ratio. Otherwise rope_scaling's factor, over the model's context.
            if (r.has("original_max_position_embeddings")) {
                scaling.originalContext = r.positiveInt("original_max_position_embeddings");
                scaling.factor = static_cast<double>(context) / scaling.originalContext;
            } else {
                scaling.originalContext = context;
                scaling.factor = s.numberOr("factor", 1.0f);
            }
            break;
    }
    return scaling;
}

}  // namespace

Rotary readRotary(const ConfigReader& r, int headDim, int context, const RotaryKeys& keys,
                  const std::string& layerType) {
    // transformers 5.x: rope_parameters, one object or one per layer type.
    std::optional<ConfigReader> parameters = r.object("rope_parameters");
    if (parameters && parameters->has(layerType.c_str()))
        parameters = parameters->object(layerType.c_str());
    Rotary rotary;
    rotary.context = context;
    double partial = r.numberOr("partial_rotary_factor", 1.0f);
    if (parameters && parameters->has("partial_rotary_factor"))
        partial = parameters->number("partial_rotary_factor");
    if (!(partial > 0.0 && partial <= 1.0)) r.fail("\"partial_rotary_factor\" must be in (0, 1]");
    rotary.dims = static_cast<int>(headDim * partial);  // HF: int(head_dim * factor)
    const bool proportional =
        parameters && parameters->stringOr("rope_type", "") == ropeTypeName(RopeType::Proportional);
    if (proportional) rotary.dims = headDim;  // the rest of the pairs turn at frequency zero
    if (rotary.dims < 2 || rotary.dims % 2 != 0)
        r.fail("\"partial_rotary_factor\" leaves " + std::to_string(rotary.dims) +
               " rotated dimensions of " + std::to_string(headDim) +
               "; rotary needs an even count");
    rotary.theta = parameters && parameters->has("rope_theta")
                       ? parameters->number("rope_theta")
                       : r.numberOr(keys.thetaKey, static_cast<float>(keys.defaultTheta));
    if (!(rotary.theta > 1.0)) r.fail("\"" + std::string(keys.thetaKey) + "\" must exceed 1");
    if (parameters) {
        rotary.scaling = readScaling(r, *parameters, rotary.dims, context);
        // HF: int(partial_rotary_factor * head_dim // 2), the floor of the float quotient.
        if (proportional) rotary.scaling.rotatedPairs = static_cast<int>(partial * headDim / 2);
    } else if (keys.scaled) {
        if (const std::optional<ConfigReader> scaling = r.object("rope_scaling"))
            rotary.scaling = readScaling(r, *scaling, rotary.dims, context);
    }
    return rotary;
}

}  // namespace qkv
