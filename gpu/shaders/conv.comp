#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Depthwise causal convolution along the tokens: y[t, c] = sum_j taps[c * kernel + j] *
// x[t - kernel + 1 + j, c] (+ bias[c]), x zero before the first token; one invocation per
// element of y.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Taps { float taps[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params { QKV_CONV_PARAMS } p;

void main() {
    const uint c = gl_GlobalInvocationID.x;
    const uint t = gl_WorkGroupID.y + gl_WorkGroupID.z * gl_NumWorkGroups.y;
    if (c >= p.cols || t >= p.rows) return;
    float sum = p.hasBias != 0u ? bias[c] : 0.0;
    for (uint j = 0; j < p.kernel; ++j) {
        const int source = int(t) - int(p.kernel) + 1 + int(j);
        if (source >= 0) sum += taps[c * p.kernel + j] * x[uint(source) * p.cols + c];
    }
    y[t * p.cols + c] = sum;
}
