#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Gated DeltaNet's implicit attention (Backend::gatedDeltaRule): invocation (s, h) carries
// u = beta_s k_s^T through the later tokens, u := gamma_r (u - beta_r (u . k_r) k_r^T), and
// writes A[t][s] = u . q_t scaled (zero above the diagonal). Value head h reads key head
// h / (valueHeads / keyHeads).
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { float k[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 3) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 4) readonly buffer ALog { float aLog[]; };
layout(std430, set = 0, binding = 5) readonly buffer DtBias { float dtBias[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Map { float map[]; };

layout(push_constant) uniform Params { QKV_DELTA_RULE_PARAMS } p;

const uint kMaxKeyDim = QKV_DELTA_RULE_MAX_KEY_DIM;

float sigmoid(float v) { return 1.0 / (1.0 + exp(-v)); }
// torch's softplus (threshold 20), as transformers calls it.
float softplus(float v) { return v > 20.0 ? v : log(1.0 + exp(v)); }

void main() {
    const uint s = gl_GlobalInvocationID.x;
    const uint local = gl_WorkGroupID.y;  // the head within the chunk
    const uint h = p.firstHead + local;
    if (s >= p.n || h >= p.valueHeads) return;
    const uint keyHead = h / (p.valueHeads / p.keyHeads);
    const uint columns = p.keyHeads * p.keyDim;
    const uint base = local * p.headStride;
    for (uint t = 0; t < s; ++t) map[base + t * p.n + s] = 0.0;

    float u[kMaxKeyDim];
    const float decayRate = exp(aLog[h]);
    float beta = sigmoid(b[s * p.valueHeads + h]);
    for (uint i = 0; i < p.keyDim; ++i) u[i] = beta * k[s * columns + keyHead * p.keyDim + i];
    for (uint t = s; t < p.n; ++t) {
        const uint row = t * columns + keyHead * p.keyDim;
        if (t > s) {
            beta = sigmoid(b[t * p.valueHeads + h]);
            const float gamma = exp(-decayRate * softplus(a[t * p.valueHeads + h] + dtBias[h]));
            float projected = 0.0;
            for (uint i = 0; i < p.keyDim; ++i) projected += u[i] * k[row + i];
            for (uint i = 0; i < p.keyDim; ++i)
                u[i] = gamma * (u[i] - beta * projected * k[row + i]);
        }
        float dot = 0.0;
        for (uint i = 0; i < p.keyDim; ++i) dot += u[i] * q[row + i];
        map[base + t * p.n + s] = dot * p.queryScale;
    }
}
