#version 450
// Masked softmax of attention scores, one workgroup per (query row, head).
//
// `raw` holds q k^T, already multiplied by 1/sqrt(d_k) unless the scale sits outside the
// softmax, one n x n matrix per head. With a score transform the row is first replaced by
// (S + S^T) / 2 or (S - S^T) / 2 (reading the head's column too) and written to `scores` for
// capture. Masking follows the CPU backend: causal rows see keys 0..i; with maskSelf a token does
// not see itself unless nothing else is visible. Probabilities are multiplied by `postScale`
// (1/sqrt(d_k) when scaling outside, else 1) and written to `probabilities`.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Raw { float raw[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Scores { float scores[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Probabilities { float probabilities[]; };

layout(push_constant) uniform Params {
    uint n;
    uint headStride;  // floats between consecutive heads' matrices
    uint causal;
    uint maskSelf;
    uint transform;  // 0 none, 1 symmetric, 2 skew
    float postScale;
} p;

// Per invocation a running (max, sum of exp(s - max)) over its keys, merged across the
// workgroup in one tree: one reduction instead of a max and then a sum.
shared vec2 reduction[gl_WorkGroupSize.x];

#define kMinusInfinity uintBitsToFloat(0xff800000u)

vec2 merge(vec2 a, vec2 b) {
    const float m = max(a.x, b.x);
    if (m == kMinusInfinity) return vec2(m, 0.0);
    return vec2(m, a.y * exp(a.x - m) + b.y * exp(b.x - m));
}

float score(uint head, uint i, uint j) {
    const float s = raw[head + i * p.n + j];
    if (p.transform == 0u) return s;
    const float t = raw[head + j * p.n + i];
    return 0.5 * (p.transform == 1u ? s + t : s - t);
}

void main() {
    const uint i = gl_WorkGroupID.x;
    const uint head = gl_WorkGroupID.y * p.headStride;
    const uint row = head + i * p.n;
    const uint lid = gl_LocalInvocationIndex;
    const uint size = gl_WorkGroupSize.x;
    const uint last = p.causal != 0u ? i : p.n - 1u;  // keys 0..last are visible
    const bool maskDiagonal = p.maskSelf != 0u && last > 0u;

    vec2 running = vec2(kMinusInfinity, 0.0);
    for (uint j = lid; j < p.n; j += size) {
        const float s = score(head, i, j);
        if (p.transform != 0u) scores[row + j] = s;
        if (j > last || (maskDiagonal && j == i)) continue;
        running = merge(running, vec2(s, 1.0));
    }
    reduction[lid] = running;
    barrier();
    for (uint stride = size / 2u; stride > 0u; stride /= 2u) {
        if (lid < stride) reduction[lid] = merge(reduction[lid], reduction[lid + stride]);
        barrier();
    }
    const float rowMax = reduction[0].x;
    const float norm = p.postScale / reduction[0].y;
    for (uint j = lid; j < p.n; j += size) {
        const bool visible = j <= last && !(maskDiagonal && j == i);
        probabilities[row + j] = visible ? exp(score(head, i, j) - rowMax) * norm : 0.0;
    }
}
