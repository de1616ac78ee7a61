#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Masked softmax of attention scores, one workgroup per (query row, head).
//
// `raw` holds q k^T, already multiplied by the score scale unless it sits outside the softmax,
// one n x keys matrix per head (keys = n but in cross-attention, which has no mask or transform). With a score transform the row is first replaced by (S + S^T) / 2 or
// (S - S^T) / 2 (reading the head's column too), then soft-capped (cap·tanh(s/cap)) when a cap is
// set; either way the result is written to `scores` for capture. Masking follows the CPU backend:
// causal rows see keys 0..i, a sliding window only keys past i - window, a chunked layer only
// the keys of i's chunk, a bidirectional local layer the keys within reach of i; with maskSelf a
// token
// does not see itself unless nothing else is visible. A position bias (T5), when bound, is added
// before the mask; the captured scores exclude it. A head's sink logit (gpt-oss), when bound,
// joins the row's softmax as one more column that is not written. Probabilities are multiplied
// by `postScale` (the scale when it sits outside, else 1) and written to `probabilities`.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Raw { float raw[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Scores { float scores[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Probabilities { float probabilities[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) readonly buffer Sinks { float sinks[]; };

layout(push_constant) uniform Params { QKV_SOFTMAX_PARAMS } p;

// Per invocation a running (max, sum of exp(s - max)) over its keys, merged across the
// workgroup in one tree: one reduction instead of a max and then a sum.
shared vec2 reduction[gl_WorkGroupSize.x];

#define kMinusInfinity uintBitsToFloat(0xff800000u)

vec2 merge(vec2 a, vec2 b) {
    const float m = max(a.x, b.x);
    if (m == kMinusInfinity) return vec2(m, 0.0);
    return vec2(m, a.y * exp(a.x - m) + b.y * exp(b.x - m));
}

// tanh without the overflow of (e^2x - 1) / (e^2x + 1) that some drivers' builtin has.
float safeTanh(float v) {
    const float t = exp(-2.0 * abs(v));
    return sign(v) * (1.0 - t) / (1.0 + t);
}

float score(uint head, uint i, uint j) {
    float s = raw[head + i * p.keys + j];
    if (p.transform != QKV_TRANSFORM_NONE) {
        const float t = raw[head + j * p.n + i];
        s = 0.5 * (p.transform == QKV_TRANSFORM_SYMMETRIC ? s + t : s - t);
    }
    return p.softCap > 0.0 ? p.softCap * safeTanh(s / p.softCap) : s;
}

// What the softmax sees: the score plus the head's position bias, if any.
float logit(float s, uint i, uint j) {
    if (p.hasBias == 0u) return s;
    const uint head = p.hasBias == 2u ? 0u : p.firstHead + gl_WorkGroupID.y;
    return s + bias[(head * p.n + i) * p.keys + j];
}

void main() {
    const uint i = gl_WorkGroupID.x;
    const uint head = gl_WorkGroupID.y * p.headStride;
    const uint row = head + i * p.keys;
    const uint lid = gl_LocalInvocationIndex;
    const uint size = gl_WorkGroupSize.x;
    uint first = p.window > 0u && i + 1u > p.window ? i + 1u - p.window : 0u;
    first = p.chunk > 0u ? max(first, i - i % p.chunk) : first;
    uint last = p.causal != 0u ? i : p.keys - 1u;  // keys first..last are visible
    first = p.reach > 0u && i > p.reach ? max(first, i - p.reach) : first;
    last = p.reach > 0u ? min(last, i + p.reach) : last;
    const bool maskDiagonal = p.maskSelf != 0u && last > first;
    const bool rewritten = p.transform != QKV_TRANSFORM_NONE || p.softCap > 0.0;

    vec2 running = vec2(kMinusInfinity, 0.0);
    for (uint j = lid; j < p.keys; j += size) {
        const float s = score(head, i, j);
        if (rewritten) scores[row + j] = s;
        if (j < first || j > last || (maskDiagonal && j == i)) continue;
        running = merge(running, vec2(logit(s, i, j), 1.0));
    }
    reduction[lid] = running;
    barrier();
    for (uint stride = size / 2u; stride > 0u; stride /= 2u) {
        if (lid < stride) reduction[lid] = merge(reduction[lid], reduction[lid + stride]);
        barrier();
    }
    vec2 total = reduction[0];
    if (p.hasSinks != 0u) total = merge(total, vec2(sinks[p.firstHead + gl_WorkGroupID.y], 1.0));
    const float rowMax = total.x;
    const float norm = p.postScale / total.y;
    for (uint j = lid; j < p.keys; j += size) {
        const bool visible = j >= first && j <= last && !(maskDiagonal && j == i);
        probabilities[row + j] = visible ? exp(logit(score(head, i, j), i, j) - rowMax) * norm : 0.0;
    }
}
