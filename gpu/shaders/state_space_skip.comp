#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Mamba-2's skip (Backend::stateSpace): out[t, h * headDim + i] += D[h] x[t, h * headDim + i],
// one invocation per element.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Skip { float skip[]; };
layout(std430, set = 0, binding = 2) buffer Out { float outValues[]; };

layout(push_constant) uniform Params { QKV_STATE_SPACE_PARAMS } p;

void main() {
    const uint column = gl_GlobalInvocationID.x;
    const uint t = gl_WorkGroupID.y + gl_WorkGroupID.z * gl_NumWorkGroups.y;
    const uint width = p.heads * p.headDim;
    if (column >= width || t >= p.n) return;
    const uint at = t * width + column;
    outValues[at] += skip[column / p.headDim] * x[at];
}
