#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// A column gather: destination column j := column columns[j] of [first | second] (second's
// columns numbered after first's), one invocation per destination element. Latent attention
// assembles its per-head queries, keys and values this way.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer First { float first[]; };
layout(std430, set = 0, binding = 1) readonly buffer Second { float second[]; };
layout(std430, set = 0, binding = 2) readonly buffer Columns { uint columns[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Destination { float destination[]; };

layout(push_constant) uniform Params { QKV_COLUMNS_PARAMS } p;

void main() {
    const uint j = gl_GlobalInvocationID.x;
    const uint r = gl_WorkGroupID.y + gl_WorkGroupID.z * gl_NumWorkGroups.y;
    if (j >= p.cols || r >= p.rows) return;
    const uint c = columns[j];
    destination[r * p.cols + j] = c < p.firstCols ? first[r * p.firstCols + c]
                                                  : second[r * p.secondCols + (c - p.firstCols)];
}
