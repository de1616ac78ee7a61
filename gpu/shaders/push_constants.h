// The contract between the Vulkan backend and its kernels, declared once: each kernel's
// push-constant fields and the codes it reads from them. The shaders include this file
// (GL_GOOGLE_include_directive) and expand a field list inside
// `layout(push_constant) uniform Params { ... } p;`; gpu/vulkan_pipelines.h expands the same
// list in its C++ structs, so the two cannot drift apart. Every field is a 32-bit scalar (uint
// or float), which std430 and C++ both pack without padding (vulkan_pipelines.h checks sizes).

// gemm.comp and gemv.comp: C = alpha · A B (+ bias) over a batch of heads.
#define QKV_GEMM_PARAMS                                                                  \
    uint m, n, k;                                                                        \
    uint lda, ldb, ldc;                                                                  \
    uint aOffset, bOffset, cOffset; /* in floats */                                      \
    uint aBatchStride, bBatchStride, cBatchStride;                                       \
    uint aGroup, bGroup;                                                                 \
    uint batchBase; /* first batch index of this dispatch (added to gl_WorkGroupID.z) */ \
    float alpha;                                                                         \
    uint flags;                                                                          \
    uint biasOffset; /* bias[biasOffset + column]: a weight stored in parts adds its slice */
#define QKV_GEMM_BIAS 1u
#define QKV_GEMM_VEC_A 2u   /* A's rows and offsets are multiples of 4 floats (and K too) */
#define QKV_GEMM_VEC_B 4u   /* likewise for B along its contiguous dimension */
#define QKV_GEMM_VEC_C 8u   /* C's rows, offsets and N are multiples of 4 */
#define QKV_GEMM_CAUSAL 16u /* A is lower triangular (masked probabilities) */
/* Specialization constant B_TYPE (id 2) of gemm.comp and gemv.comp: how B is stored. */
#define QKV_B_F32 0u
#define QKV_B_F16 1u  /* IEEE half, two per 32-bit word, the lower half first */
#define QKV_B_BF16 2u /* bfloat16, likewise */

// split_sum.comp: C := alpha * (the split-K partial products summed in order) (+ bias); the
// partials are `splits` m x n matrices back to back.
#define QKV_SPLIT_SUM_PARAMS           \
    uint m, n, splits;                 \
    uint ldc, cOffset; /* in floats */ \
    uint biasOffset;                   \
    uint hasBias;                      \
    float alpha;

// softmax.comp: masked softmax of one n x n score matrix per head.
#define QKV_SOFTMAX_PARAMS                                                           \
    uint n;                                                                          \
    uint headStride; /* floats between consecutive heads' matrices */                \
    uint causal;                                                                     \
    uint maskSelf;                                                                   \
    uint transform; /* QKV_TRANSFORM_* */                                            \
    float postScale;                                                                 \
    float softCap;  /* 0: none */                                                    \
    uint window;    /* 0: none */                                                    \
    uint reach;     /* bidirectional: keys within reach of the query; 0: all */      \
    uint chunk;     /* keys in the query's chunk of chunk positions; 0: all */       \
    uint keys;      /* n_k: row length (= n but in cross-attention) */               \
    uint firstHead; /* the chunk's first head, to find its bias and sink */          \
    uint hasBias;   /* 1: a position bias of heads x n x keys; 2: n x keys shared */ \
    uint hasSinks;  /* a sink logit per head is bound */
#define QKV_TRANSFORM_NONE 0u
#define QKV_TRANSFORM_SYMMETRIC 1u
#define QKV_TRANSFORM_SKEW 2u

// norm.comp: LayerNorm, RMSNorm or a unit vector per row.
#define QKV_NORM_PARAMS                    \
    uint rows;                             \
    uint cols;                             \
    float eps;                             \
    uint kind;        /* QKV_NORM_* */     \
    uint hasBeta;     /* LayerNorm only */ \
    uint gammaBlocks; /* gamma spans this many consecutive rows (1: each row has it all) */
#define QKV_NORM_LAYER 0u
#define QKV_NORM_RMS 1u
#define QKV_NORM_UNIT 2u          /* x / sqrt(sum x^2 + eps), no gamma (normalizeHeads) */
#define QKV_NORM_GAUSSIAN_TOPK 3u /* relu(x - (mean + eps * std)): eps carries z, no gamma */

// eltwise.comp: x := op(x[, y]) element by element.
#define QKV_ELTWISE_PARAMS                                                            \
    uint count;                                                                       \
    uint op;      /* QKV_ELTWISE_* */                                                 \
    float alphaP; /* xIELU's parameters (XIeluParameters); unread by the other ops */ \
    float alphaN;                                                                     \
    float beta;                                                                       \
    float eps;
#define QKV_ELTWISE_GELU_TANH 0u
#define QKV_ELTWISE_GELU_EXACT 1u
#define QKV_ELTWISE_RELU 2u
#define QKV_ELTWISE_SWIGLU 3u
#define QKV_ELTWISE_ADD 4u
#define QKV_ELTWISE_GELU_TANH_GLU 5u
#define QKV_ELTWISE_SILU 6u
#define QKV_ELTWISE_GELU_GLU 7u /* exact (erf) GELU of the gate */
/* x[i] := gpt-oss's clamped SwiGLU of y[2i] (gate) and y[2i + 1] (up) */
#define QKV_ELTWISE_CLAMPED_SWIGLU 8u
/* x[i] := the same of y[i] (gate) and x[i] (up), kept apart (gpt-oss's GGUF files) */
#define QKV_ELTWISE_CLAMPED_SWIGLU_APART 9u
#define QKV_ELTWISE_SIGMOID_GLU 10u /* x *= sigmoid(y): gated attention's output gate */
#define QKV_ELTWISE_RELU_SQUARED 11u
#define QKV_ELTWISE_PRODUCT_GLU 12u /* x *= y: LFM2's short convolution */
#define QKV_ELTWISE_XIELU 13u       /* Apertus's MLP, with the layer's parameters */

// rows.comp: a mixture of experts' row moves (gather, add weighted).
#define QKV_ROWS_PARAMS \
    uint count;         \
    uint cols;          \
    uint mode; /* QKV_ROWS_* */
#define QKV_ROWS_GATHER 0u
#define QKV_ROWS_ADD_WEIGHTED 1u

// columns.comp: destination column j := column columns[j] of [first | second].
#define QKV_COLUMNS_PARAMS \
    uint rows;             \
    uint cols;             \
    uint firstCols;        \
    uint secondCols;

// rope.comp: rotary embedding on the first rotaryDims of each head, row i at position
// firstPosition + i; pairs (i, i + rotaryDims/2), or (2i, 2i + 1) where interleaved is 1.
#define QKV_ROPE_PARAMS \
    uint rows;          \
    uint cols;          \
    uint headDim;       \
    uint rotaryDims;    \
    uint firstPosition; \
    uint interleaved;

// conv.comp: depthwise causal convolution along the rows (tokens), kernel taps per column.
#define QKV_CONV_PARAMS \
    uint rows;          \
    uint cols;          \
    uint kernel;        \
    uint hasBias;

// delta_rule.comp: Gated DeltaNet's implicit attention, one column (key token s) of one value
// head per invocation, into per-head n x n matrices headStride floats apart.
#define QKV_DELTA_RULE_PARAMS                                                 \
    uint n;                                                                   \
    uint keyHeads;                                                            \
    uint valueHeads;                                                          \
    uint keyDim;                                                              \
    uint headStride;                                                          \
    uint firstHead; /* the chunk's first value head (its scratch's head 0) */ \
    float queryScale;
#define QKV_DELTA_RULE_MAX_KEY_DIM 256u

// state_space_{decay,map,skip}.comp: Mamba-2's dual form. The decay buffer holds Δ (n x heads)
// then the cumulative sums of Δ A (n x heads); the maps are per-head n x n matrices headStride
// floats apart.
#define QKV_STATE_SPACE_PARAMS                                          \
    uint n;                                                             \
    uint heads;                                                         \
    uint headDim;                                                       \
    uint groups;                                                        \
    uint stateDim;                                                      \
    uint headStride;                                                    \
    uint firstHead; /* the chunk's first head (its scratch's head 0) */ \
    float dtMin;                                                        \
    float dtMax;
