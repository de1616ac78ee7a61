#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
// Row-wise LayerNorm (mean, then variance about it; beta optional), RMSNorm, unit vector (a
// head's key under normalizeHeads: each head is a row of headDim) or activation sparsity's
// Gaussian top-k (LayerNorm's mean and deviation, then a cutoff), one workgroup per row.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Gamma { float gamma[]; };
layout(std430, set = 0, binding = 2) readonly buffer Beta { float beta[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params { QKV_NORM_PARAMS } p;

shared float reduction[gl_WorkGroupSize.x];

float sumOverWorkgroup(float value) {
    const uint lid = gl_LocalInvocationIndex;
    reduction[lid] = value;
    barrier();
    for (uint stride = gl_WorkGroupSize.x / 2u; stride > 0u; stride /= 2u) {
        if (lid < stride) reduction[lid] += reduction[lid + stride];
        barrier();
    }
    const float total = reduction[0];
    barrier();
    return total;
}

void main() {
    const uint r = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (r >= p.rows) return;
    const uint base = r * p.cols;
    const uint lid = gl_LocalInvocationIndex;
    const uint size = gl_WorkGroupSize.x;
    if (p.kind == QKV_NORM_RMS || p.kind == QKV_NORM_UNIT) {
        float squares = 0.0;
        for (uint i = lid; i < p.cols; i += size) squares += x[base + i] * x[base + i];
        const float total = sumOverWorkgroup(squares);
        if (p.kind == QKV_NORM_UNIT) {
            const float inv = 1.0 / sqrt(total + p.eps);
            for (uint i = lid; i < p.cols; i += size) y[base + i] = x[base + i] * inv;
            return;
        }
        const float inv = 1.0 / sqrt(total / float(p.cols) + p.eps);
        const uint g = (r % p.gammaBlocks) * p.cols;  // a row-wide gamma's part for this block
        for (uint i = lid; i < p.cols; i += size) y[base + i] = gamma[g + i] * (x[base + i] * inv);
        return;
    }
    // The mean is taken of x minus the row's first element: a float32 sum of n equal values
    // divided by n need not give the value back, and with a tiny eps a constant row's
    // deviations of one ulp became outputs of 0.01 on a GPU; shifted, they are exactly zero.
    // (The CPU backend sums in double, where that sum is exact.)
    const float pivot = x[base];
    float sum = 0.0;
    for (uint i = lid; i < p.cols; i += size) sum += x[base + i] - pivot;
    const float shiftedMean = sumOverWorkgroup(sum) / float(p.cols);
    float deviations = 0.0;
    for (uint i = lid; i < p.cols; i += size) {
        const float d = (x[base + i] - pivot) - shiftedMean;
        deviations += d * d;
    }
    if (p.kind == QKV_NORM_GAUSSIAN_TOPK) {  // eps carries z
        const float spread = sqrt(sumOverWorkgroup(deviations) / float(p.cols));
        const float cutoff = shiftedMean + spread * p.eps;
        for (uint i = lid; i < p.cols; i += size)
            y[base + i] = max((x[base + i] - pivot) - cutoff, 0.0);
        return;
    }
    const float inv = 1.0 / sqrt(sumOverWorkgroup(deviations) / float(p.cols) + p.eps);
    for (uint i = lid; i < p.cols; i += size) {
        const float shift = p.hasBeta != 0u ? beta[i] : 0.0;
        y[base + i] = ((x[base + i] - pivot) - shiftedMean) * inv * gamma[i] + shift;
    }
}
