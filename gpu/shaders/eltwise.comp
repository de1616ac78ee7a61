#version 450
#extension GL_GOOGLE_include_directive : require
#include "push_constants.h"
#include "clamped_swiglu.h"
// Element-wise ops in place on x (grid-stride loop): activations, the gated x *= silu(y) or
// x *= gelu_tanh(y), x *= sigmoid(y), gpt-oss's clamped SwiGLU of y's interleaved pairs (y twice x's size) or of
// gate y and up x, and
// the residual x += y.
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y { float y[]; };

layout(push_constant) uniform Params { QKV_ELTWISE_PARAMS } p;

const uint kGeluTanh = QKV_ELTWISE_GELU_TANH;
const uint kGeluExact = QKV_ELTWISE_GELU_EXACT;
const uint kRelu = QKV_ELTWISE_RELU;
const uint kReluSquared = QKV_ELTWISE_RELU_SQUARED;
const uint kSwiGlu = QKV_ELTWISE_SWIGLU;
const uint kAdd = QKV_ELTWISE_ADD;
const uint kGeluTanhGlu = QKV_ELTWISE_GELU_TANH_GLU;
const uint kGeluGlu = QKV_ELTWISE_GELU_GLU;
const uint kSilu = QKV_ELTWISE_SILU;
const uint kClampedSwiGlu = QKV_ELTWISE_CLAMPED_SWIGLU;
const uint kClampedSwiGluApart = QKV_ELTWISE_CLAMPED_SWIGLU_APART;
const uint kSigmoidGlu = QKV_ELTWISE_SIGMOID_GLU;
const uint kProductGlu = QKV_ELTWISE_PRODUCT_GLU;
const uint kXIelu = QKV_ELTWISE_XIELU;
// gpt-oss's constants, shared with the CPU backend.
const float kClampLimit = QKV_CLAMPED_SWIGLU_LIMIT;
const float kClampAlpha = QKV_CLAMPED_SWIGLU_ALPHA;

// tanh without the overflow of (e^2x - 1) / (e^2x + 1) that some drivers' builtin has.
float safeTanh(float v) {
    const float t = exp(-2.0 * abs(v));
    return sign(v) * (1.0 - t) / (1.0 + t);
}

// erf to about 1e-7 absolute: a Taylor series near zero, elsewhere 1 - erfc with the Chebyshev
// fit of Numerical Recipes (erfcc, fractional error below 1.2e-7).
float accurateErf(float v) {
    const float z = abs(v);
    if (z < 0.5) {
        const float z2 = z * z;
        // 2/sqrt(pi) * (z - z^3/3 + z^5/10 - z^7/42 + z^9/216 - z^11/1320)
        const float series =
            z * (1.0 + z2 * (-1.0 / 3.0 + z2 * (1.0 / 10.0 + z2 * (-1.0 / 42.0 +
                 z2 * (1.0 / 216.0 + z2 * (-1.0 / 1320.0))))));
        return sign(v) * 1.1283791670955126 * series;
    }
    const float t = 1.0 / (1.0 + 0.5 * z);
    const float erfc = t * exp(-z * z - 1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
        t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 +
        t * 0.17087277)))))))));
    return sign(v) * (1.0 - erfc);
}

float geluTanh(float v) {
    return 0.5 * v * (1.0 + safeTanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}

float geluExact(float v) { return 0.5 * v * (1.0 + accurateErf(v * 0.7071067811865476)); }

float clampedSwiGlu(float gate, float up) {
    gate = min(gate, kClampLimit);
    up = clamp(up, -kClampLimit, kClampLimit);
    return (up + 1.0) * (gate / (1.0 + exp(-kClampAlpha * gate)));
}

// e^v - 1 without the cancellation of exp(v) - 1 near zero (GLSL has no expm1): a Taylor
// series for |v| < 1/8, whose next term is below float32's precision there.
float expm1Accurate(float v) {
    if (abs(v) >= 0.125) return exp(v) - 1.0;
    return v * (1.0 + v * (0.5 + v * (1.0 / 6.0 + v * (1.0 / 24.0 + v * (1.0 / 120.0 +
           v * (1.0 / 720.0))))));
}

float xielu(float v) {
    if (v > 0.0) return p.alphaP * v * v + p.beta * v;
    return (expm1Accurate(min(v, p.eps)) - v) * p.alphaN + p.beta * v;
}

float apply(float v, uint index) {
    switch (p.op) {
        case kGeluTanh:
            return geluTanh(v);
        case kGeluExact:
            return geluExact(v);
        case kRelu:
            return max(v, 0.0);
        case kReluSquared: {
            const float r = max(v, 0.0);
            return r * r;
        }
        case kSilu:
            return v / (1.0 + exp(-v));
        case kSwiGlu: {
            const float g = y[index];
            return v * (g / (1.0 + exp(-g)));
        }
        case kGeluTanhGlu:
            return v * geluTanh(y[index]);
        case kGeluGlu:
            return v * geluExact(y[index]);
        case kClampedSwiGlu:
            return clampedSwiGlu(y[2u * index], y[2u * index + 1u]);
        case kClampedSwiGluApart:
            return clampedSwiGlu(y[index], v);
        case kSigmoidGlu:
            return v / (1.0 + exp(-y[index]));
        case kProductGlu:
            return v * y[index];
        case kXIelu:
            return xielu(v);
        default:
            return v + y[index];
    }
}

void main() {
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) x[i] = apply(x[i], i);
}
