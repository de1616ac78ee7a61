#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// The second step of a GEMM split along K (see VulkanBackend::gemm): each element of C is the
// sum of its partial products in split order, which keeps the result the same run after run.
// One invocation per column, workgroup row y per row of C.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Partials { float partial[]; };
layout(std430, set = 0, binding = 1) readonly buffer BiasBuffer { float bias[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { float c[]; };

layout(push_constant) uniform Params { QKV_SPLIT_SUM_PARAMS } p;

void main() {
    const uint col = gl_GlobalInvocationID.x;
    const uint row = gl_WorkGroupID.y;
    if (col >= p.n || row >= p.m) return;
    float total = 0.0;
    for (uint s = 0u; s < p.splits; ++s) total += partial[(s * p.m + row) * p.n + col];
    const float shift = p.hasBias != 0u ? bias[p.biasOffset + col] : 0.0;
    c[p.cOffset + row * p.ldc + col] = p.alpha * total + shift;
}
