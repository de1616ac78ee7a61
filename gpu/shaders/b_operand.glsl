// Included by gemm.comp and gemv.comp after they declare B_TYPE and B's buffer views b[] (float)
// and bHalves[] (two 16-bit elements per word, the lower half first).
// B's element `index` as float32, whatever B_TYPE stores: half types are widened exactly
// (bfloat16 is the top half of a float32; float16 subnormals included).
float halfToFloat(uint bits) {
    if (B_TYPE == QKV_B_BF16) return uintBitsToFloat(bits << 16);
    const uint sign = (bits & 0x8000u) << 16;
    const uint exponent = (bits >> 10) & 0x1Fu;
    const uint mantissa = bits & 0x3FFu;
    if (exponent == 0u) {  // zero or subnormal: mantissa * 2^-24, exact in float32
        const float magnitude = float(mantissa) * exp2(-24.0);
        return sign != 0u ? -magnitude : magnitude;
    }
    if (exponent == 31u) return uintBitsToFloat(sign | 0x7F800000u | (mantissa << 13));
    return uintBitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float bAt(uint index) {
    if (B_TYPE == QKV_B_F32) return b[index];
    return halfToFloat((bHalves[index >> 1] >> ((index & 1u) * 16u)) & 0xFFFFu);
}
