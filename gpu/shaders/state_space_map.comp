#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Mamba-2's implicit attention (Backend::stateSpace): invocation (s, t, head of the chunk) writes
// M[t][s] = (C_t . B_s) exp(cum_t - cum_s) delta_s, zero above the diagonal. Head h reads the B
// and C of group h / (heads / groups).
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 1) readonly buffer C { float c[]; };
layout(std430, set = 0, binding = 2) readonly buffer Decay { float decay[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Map { float map[]; };

layout(push_constant) uniform Params { QKV_STATE_SPACE_PARAMS } p;

void main() {
    const uint s = gl_GlobalInvocationID.x;
    const uint t = gl_WorkGroupID.y;
    const uint local = gl_WorkGroupID.z;
    const uint h = p.firstHead + local;
    if (s >= p.n || t >= p.n || h >= p.heads) return;
    const uint at = local * p.headStride + t * p.n + s;
    if (s > t) {
        map[at] = 0.0;
        return;
    }
    const uint width = p.groups * p.stateDim;
    const uint first = (h / (p.heads / p.groups)) * p.stateDim;
    float dot = 0.0;
    for (uint i = 0; i < p.stateDim; ++i) dot += c[t * width + first + i] * b[s * width + first + i];
    const uint cum = p.n * p.heads;
    const float decayed = exp(decay[cum + t * p.heads + h] - decay[cum + s * p.heads + h]);
    map[at] = dot * decayed * decay[s * p.heads + h];
}
