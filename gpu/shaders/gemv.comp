#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// The GEMM of gemm.comp (same parameters and layouts) for at most 16 rows of A, e.g. the LM head
// at the last position: one invocation per column of C keeps all M results in registers and
// reads its column of B once, where a 64 x 64 tile would compute 64 rows for one. A is staged in
// shared memory 64 k at a time (it is the same for every invocation).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool B_NK = false;
layout(constant_id = 2) const uint B_TYPE = QKV_B_F32;  // as in gemm.comp

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { float b[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer4 { vec4 b4[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBufferHalves { uint bHalves[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { float c[]; };
layout(std430, set = 0, binding = 3) readonly buffer BiasBuffer { float bias[]; };

layout(push_constant) uniform Params { QKV_GEMM_PARAMS } p;

const uint kBias = QKV_GEMM_BIAS;
const uint kVecB = QKV_GEMM_VEC_B;
const uint MAX_M = 16u;
const uint KC = 64u;

shared vec4 As[MAX_M][KC / 4u];  // A[row][k0 + 4 j + i] = As[row][j][i]

#include "b_operand.glsl"

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint size = gl_WorkGroupSize.x;
    const uint col = gl_GlobalInvocationID.x;
    const uint z = gl_WorkGroupID.z + p.batchBase;
    const uint aBase = p.aOffset + (z / p.aGroup) * p.aBatchStride;
    const uint bBase = p.bOffset + (z / p.bGroup) * p.bBatchStride;
    const uint cBase = p.cOffset + z * p.cBatchStride;
    const bool vecB = B_NK && B_TYPE == QKV_B_F32 && (p.flags & kVecB) != 0u;
    const bool inRange = col < p.n;

    float acc[MAX_M];
    for (uint r = 0u; r < MAX_M; ++r) acc[r] = 0.0;

    for (uint k0 = 0u; k0 < p.k; k0 += KC) {
        for (uint i = lid; i < MAX_M * KC / 4u; i += size) {
            const uint r = i / (KC / 4u);
            const uint k = k0 + (i % (KC / 4u)) * 4u;
            vec4 v = vec4(0.0);
            if (r < p.m)
                for (uint j = 0u; j < 4u; ++j)
                    if (k + j < p.k) v[j] = a[aBase + r * p.lda + k + j];
            As[r][i % (KC / 4u)] = v;
        }
        barrier();
        if (inRange) {
            for (uint kk = 0u; kk < KC; kk += 4u) {
                const uint k = k0 + kk;
                if (k >= p.k) break;
                vec4 w = vec4(0.0);
                if (vecB) {
                    w = b4[(bBase + col * p.ldb + k) / 4u];  // K is a multiple of 4
                } else {
                    for (uint i = 0u; i < 4u; ++i)
                        if (k + i < p.k)
                            w[i] = B_NK ? bAt(bBase + col * p.ldb + k + i)
                                        : bAt(bBase + (k + i) * p.ldb + col);
                }
                for (uint r = 0u; r < MAX_M; ++r)
                    if (r < p.m) acc[r] += dot(As[r][kk / 4u], w);
            }
        }
        barrier();
    }
    if (!inRange) return;
    const float shift = (p.flags & kBias) != 0u ? bias[p.biasOffset + col] : 0.0;
    for (uint r = 0u; r < MAX_M; ++r)
        if (r < p.m) c[cBase + r * p.ldc + col] = p.alpha * acc[r] + shift;
}
