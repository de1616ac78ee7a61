// gpt-oss's expert activation constants, fixed in its modelling code: the gate is clamped to at
// most LIMIT and the up projection to [-LIMIT, LIMIT]; out = (up + 1) · gate · sigmoid(ALPHA ·
// gate). Plain #defines (with a guard GLSL also reads), included by the CPU backend
// (activation.h) and the Vulkan shader (gpu/shaders/eltwise.comp) alike.
#ifndef QKV_CLAMPED_SWIGLU_H
#define QKV_CLAMPED_SWIGLU_H
#define QKV_CLAMPED_SWIGLU_LIMIT 7.0
#define QKV_CLAMPED_SWIGLU_ALPHA 1.702
#endif
