#version 450
// Rotary position embedding, Hugging Face rotate_half convention: for each head of d columns and
// i < d/2, (a, b) = (x[i], x[i + d/2]) becomes (a cos - b sin, b cos + a sin). The cos/sin table
// is computed on the host exactly as the CPU backend does (float32 angle pos * inv_freq), so
// both backends rotate by identical numbers; shader sin/cos are not accurate enough at large
// angles on every GPU.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Table { vec2 cosSin[]; };  // [pos][i]
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
    uint rows;
    uint cols;
    uint headDim;
} p;

void main() {
    const uint half_ = p.headDim / 2u;
    const uint pairsPerRow = p.cols / 2u;
    const uint count = p.rows * pairsPerRow;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint index = gl_GlobalInvocationID.x; index < count; index += stride) {
        const uint pos = index / pairsPerRow;
        const uint pair = index % pairsPerRow;
        const uint i = pair % half_;
        const uint first = pos * p.cols + (pair / half_) * p.headDim + i;
        const vec2 cs = cosSin[pos * half_ + i];
        const float a = x[first];
        const float b = x[first + half_];
        y[first] = a * cs.x - b * cs.y;
        y[first + half_] = b * cs.x + a * cs.y;
    }
}
