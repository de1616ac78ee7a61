#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Mamba-2's step sizes and decay (Backend::stateSpace), one invocation per head, token by token:
// delta_t = clamp(softplus(dt_t + dtBias), dtMin, dtMax) and cum_t = sum_{r <= t} delta_r A with
// A = -exp(aLog).
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Dt { float dt[]; };
layout(std430, set = 0, binding = 1) readonly buffer ALog { float aLog[]; };
layout(std430, set = 0, binding = 2) readonly buffer DtBias { float dtBias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Decay { float decay[]; };

layout(push_constant) uniform Params { QKV_STATE_SPACE_PARAMS } p;

// torch's softplus (threshold 20), as transformers calls it.
float softplus(float v) { return v > 20.0 ? v : log(1.0 + exp(v)); }

void main() {
    const uint h = gl_GlobalInvocationID.x;
    if (h >= p.heads) return;
    const float rate = -exp(aLog[h]);
    float sum = 0.0;
    for (uint t = 0; t < p.n; ++t) {
        const uint at = t * p.heads + h;
        const float delta = min(max(softplus(dt[at] + dtBias[h]), p.dtMin), p.dtMax);
        sum += delta * rate;
        decay[at] = delta;
        decay[p.n * p.heads + at] = sum;
    }
}
