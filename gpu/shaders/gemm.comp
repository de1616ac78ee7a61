#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Batched, strided GEMM: C[z] = alpha * A[z] B[z] (+ bias), float32 arithmetic; B (a weight)
// may be stored as float16 or bfloat16 (B_TYPE) and is widened as it is loaded.
//
// A is M x K row-major (row stride lda). B is K x N, stored either row-major (a Conv1D [in, out]
// weight, attention values) or, with B_NK, as its N x K transpose (a Linear [out, in] weight,
// attention keys). C is M x N row-major. Batch z (attention head) reads A at
// (z / aGroup) * aBatchStride and B at (z / bGroup) * bBatchStride, which is how grouped-query
// heads share keys and values; C is written at z * cBatchStride.
//
// One workgroup computes a 64 x 64 tile of C with 256 invocations, 4 x 4 outputs each; 64 x 16
// slices of A and B are staged in shared memory, loaded as vec4 where the layout allows it.
layout(local_size_x_id = 0) in;  // 256 = (BM / 4) * (BN / 4)
layout(constant_id = 1) const bool B_NK = false;
layout(constant_id = 2) const uint B_TYPE = QKV_B_F32;  // F16/BF16: B's elements are 16 bits

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float a[]; };
layout(std430, set = 0, binding = 0) readonly buffer ABuffer4 { vec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { float b[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer4 { vec4 b4[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBufferHalves { uint bHalves[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { float c[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer4 { vec4 c4[]; };
layout(std430, set = 0, binding = 3) readonly buffer BiasBuffer { float bias[]; };

layout(push_constant) uniform Params { QKV_GEMM_PARAMS } p;

const uint kBias = QKV_GEMM_BIAS;
const uint kVecA = QKV_GEMM_VEC_A;
const uint kVecB = QKV_GEMM_VEC_B;
const uint kVecC = QKV_GEMM_VEC_C;
const uint kCausal = QKV_GEMM_CAUSAL;

const uint BM = 64u, BN = 64u, BK = 16u;
// Padding spreads the transposing stores over more banks while keeping rows 16-byte aligned.
shared float As[BK][BM + 4u];
shared float Bs[BK][BN + 4u];

// Four consecutive floats starting at `index` (which is a multiple of 4 when `vec` is set),
// zero past `limit` along the contiguous dimension.
vec4 loadA(uint index, uint position, uint limit, bool vec) {
    if (vec) return position < limit ? a4[index / 4u] : vec4(0.0);
    vec4 v = vec4(0.0);
    for (uint i = 0u; i < 4u; ++i)
        if (position + i < limit) v[i] = a[index + i];
    return v;
}

#include "b_operand.glsl"

vec4 loadB(uint index, uint position, uint limit, bool vec) {
    if (vec && B_TYPE == QKV_B_F32) return position < limit ? b4[index / 4u] : vec4(0.0);
    vec4 v = vec4(0.0);
    for (uint i = 0u; i < 4u; ++i)
        if (position + i < limit) v[i] = bAt(index + i);
    return v;
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint tx = lid % 16u;
    const uint ty = lid / 16u;
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    const uint z = gl_WorkGroupID.z + p.batchBase;
    // Unsigned arithmetic wraps, so an offset may be "negative" to index scratch per chunk.
    const uint aBase = p.aOffset + (z / p.aGroup) * p.aBatchStride;
    const uint bBase = p.bOffset + (z / p.bGroup) * p.bBatchStride;
    const uint cBase = p.cOffset + z * p.cBatchStride;
    const uint kEnd = (p.flags & kCausal) != 0u ? min(p.k, m0 + BM) : p.k;
    const bool vecA = (p.flags & kVecA) != 0u;
    const bool vecB = (p.flags & kVecB) != 0u;

    // Loader roles: A (and B_NK) tiles are 64 rows x 16 k, one quad along k per invocation;
    // row-major B tiles are 16 k x 64 columns, one quad along n per invocation.
    const uint quadRow = lid / 4u;
    const uint quadK = (lid % 4u) * 4u;
    const uint bRowK = lid / 16u;
    const uint bQuadN = (lid % 16u) * 4u;

    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    for (uint k0 = 0u; k0 < kEnd; k0 += BK) {
        {
            const uint row = m0 + quadRow;
            const uint k = k0 + quadK;
            vec4 v = vec4(0.0);
            if (row < p.m) v = loadA(aBase + row * p.lda + k, k, p.k, vecA);
            As[quadK + 0u][quadRow] = v.x;
            As[quadK + 1u][quadRow] = v.y;
            As[quadK + 2u][quadRow] = v.z;
            As[quadK + 3u][quadRow] = v.w;
        }
        if (B_NK) {
            const uint col = n0 + quadRow;
            const uint k = k0 + quadK;
            vec4 v = vec4(0.0);
            if (col < p.n) v = loadB(bBase + col * p.ldb + k, k, p.k, vecB);
            Bs[quadK + 0u][quadRow] = v.x;
            Bs[quadK + 1u][quadRow] = v.y;
            Bs[quadK + 2u][quadRow] = v.z;
            Bs[quadK + 3u][quadRow] = v.w;
        } else {
            const uint k = k0 + bRowK;
            const uint col = n0 + bQuadN;
            vec4 v = vec4(0.0);
            if (k < p.k) v = loadB(bBase + k * p.ldb + col, col, p.n, vecB);
            Bs[bRowK][bQuadN + 0u] = v.x;
            Bs[bRowK][bQuadN + 1u] = v.y;
            Bs[bRowK][bQuadN + 2u] = v.z;
            Bs[bRowK][bQuadN + 3u] = v.w;
        }
        barrier();
        for (uint kk = 0u; kk < BK; ++kk) {
            const vec4 av = vec4(As[kk][ty * 4u], As[kk][ty * 4u + 1u], As[kk][ty * 4u + 2u],
                                 As[kk][ty * 4u + 3u]);
            const vec4 bv = vec4(Bs[kk][tx * 4u], Bs[kk][tx * 4u + 1u], Bs[kk][tx * 4u + 2u],
                                 Bs[kk][tx * 4u + 3u]);
            acc[0] += av.x * bv;
            acc[1] += av.y * bv;
            acc[2] += av.z * bv;
            acc[3] += av.w * bv;
        }
        barrier();
    }

    const uint col = n0 + tx * 4u;
    vec4 biasValue = vec4(0.0);
    if ((p.flags & kBias) != 0u)
        for (uint j = 0u; j < 4u; ++j)
            if (col + j < p.n) biasValue[j] = bias[p.biasOffset + col + j];
    const bool vecC = (p.flags & kVecC) != 0u;
    for (uint i = 0u; i < 4u; ++i) {
        const uint row = m0 + ty * 4u + i;
        if (row >= p.m) break;
        const vec4 value = p.alpha * acc[i] + biasValue;
        const uint index = cBase + row * p.ldc + col;
        if (vecC) {
            if (col < p.n) c4[index / 4u] = value;
        } else {
            for (uint j = 0u; j < 4u; ++j)
                if (col + j < p.n) c[index + j] = value[j];
        }
    }
}
