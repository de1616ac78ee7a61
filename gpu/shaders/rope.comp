#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Rotary position embedding on the first rotaryDims of each head (the rest are copied: GPT-NeoX's
// partial rotary): for i < r/2, the pair (a, b) = (x[i], x[i + r/2]) (Hugging Face's
// rotate_half) or, interleaved, (x[2i], x[2i + 1]) becomes (a cos - b sin, b cos + a sin). One
// invocation per element. The cos/sin table is
// computed on the host exactly as the CPU backend does (float32 angle pos * inv_freq), so both
// backends rotate by identical numbers; shader sin/cos are not accurate enough at large angles
// on every GPU.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Table { vec2 cosSin[]; };  // [pos][i]
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params { QKV_ROPE_PARAMS } p;

void main() {
    const uint half_ = p.rotaryDims / 2u;
    const uint count = p.rows * p.cols;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint index = gl_GlobalInvocationID.x; index < count; index += stride) {
        const uint offset = (index % p.cols) % p.headDim;  // within the head
        if (offset >= p.rotaryDims) {
            y[index] = x[index];
            continue;
        }
        if (p.interleaved != 0u) {
            const vec2 cs = cosSin[(p.firstPosition + index / p.cols) * half_ + offset / 2u];
            y[index] = offset % 2u == 0u ? x[index] * cs.x - x[index + 1u] * cs.y
                                         : x[index] * cs.x + x[index - 1u] * cs.y;
            continue;
        }
        const vec2 cs = cosSin[(p.firstPosition + index / p.cols) * half_ + offset % half_];
        y[index] = offset < half_ ? x[index] * cs.x - x[index + half_] * cs.y
                                  : x[index] * cs.x + x[index - half_] * cs.y;
    }
}
