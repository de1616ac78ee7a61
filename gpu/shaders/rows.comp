#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Row moves of a mixture of experts, one invocation per element of a listed row:
//   gather:       destination row i := source row rows[i]             (an expert's tokens)
//   add weighted: destination row rows[i] += weights[i] · source row i (its weighted outputs)
// The listed rows are distinct, so no two invocations write the same element.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Source { float source[]; };
layout(std430, set = 0, binding = 1) buffer Destination { float destination[]; };
layout(std430, set = 0, binding = 2) readonly buffer Rows { uint rows[]; };
layout(std430, set = 0, binding = 3) readonly buffer Weights { float weights[]; };

layout(push_constant) uniform Params { QKV_ROWS_PARAMS } p;

void main() {
    const uint col = gl_GlobalInvocationID.x;
    const uint i = gl_WorkGroupID.y + gl_WorkGroupID.z * gl_NumWorkGroups.y;
    if (col >= p.cols || i >= p.count) return;
    if (p.mode == QKV_ROWS_GATHER) {
        destination[i * p.cols + col] = source[rows[i] * p.cols + col];
    } else {
        const uint at = rows[i] * p.cols + col;
        destination[at] += weights[i] * source[i * p.cols + col];
    }
}
