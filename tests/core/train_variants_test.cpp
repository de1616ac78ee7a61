// The training lab's attention variants beyond tying: full-bilinear reproduces the factored head
// exactly when its W_h is the rank-d_k product W_Q^h W_K^h^T, and starts at the factored head's
// score scale; the Reformer variant's keys are unit vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/train/attention_ops.h"
#include "core/train/gpt2_network.h"
#include "core/train/parameters.h"
#include "core/train/random.h"
#include "core/train/trainer.h"
#include "core/train/variant_metrics.h"

namespace qkv::train {
namespace {

ModelShape smallShape(const char* variant) {
    return {.layers = 2,
            .heads = 2,
            .dModel = 8,
            .context = 6,
            .vocab = 13,
            .tying = AttentionTying::parse(variant)};
}

std::vector<double> randomParameters(const ParameterLayout& layout, Random& random) {
    std::vector<double> params(layout.size(), 0.0);
    for (const ParameterTensor& t : layout.tensors()) {
        const bool gamma = t.name.find("ln_") != std::string::npos && t.name.ends_with("weight");
        for (size_t i = 0; i < t.size(); ++i)
            params[t.offset + i] = (gamma ? 1.0 : 0.0) + 0.3 * random.normal();
    }
    return params;
}

// The same network with each factored head's W_Q^h W_K^h^T as full-bilinear's W_h, c_h =
// W_K^h b_Q^h (the query bias's key-dependent term; the rest of q.k is constant along a row and
// cancels in the softmax), and V as it was.
std::vector<double> asBilinear(const ModelShape& factored, const std::vector<double>& params,
                               const ModelShape& bilinear) {
    const ParameterLayout from(factored), to(bilinear);
    std::vector<double> out(to.size(), 0.0);
    for (const ParameterTensor& t : from.tensors()) {
        if (t.name.find(".attn.sources.") != std::string::npos) continue;
        const ParameterTensor& target = to.tensor(t.name);
        std::copy_n(params.begin() + t.offset, t.size(), out.begin() + target.offset);
    }
    const int d = factored.dModel, dk = factored.headDim(), heads = factored.heads;
    const int fromCols = factored.attentionColumns(), toCols = bilinear.attentionColumns();
    for (int l = 0; l < factored.layers; ++l) {
        const double* w = params.data() + from.layers[l].attnWeight;  // [Q | K | V]
        const double* b = params.data() + from.layers[l].attnBias;
        double* bw = out.data() + to.layers[l].attnWeight;  // [W_1 | ... | W_H | V]
        double* bb = out.data() + to.layers[l].attnBias;
        for (int h = 0; h < heads; ++h)
            for (int r = 0; r < d; ++r)
                for (int c = 0; c < d; ++c) {
                    double m = 0.0;
                    for (int k = 0; k < dk; ++k)
                        m += w[r * fromCols + h * dk + k] * w[c * fromCols + d + h * dk + k];
                    bw[r * toCols + h * d + c] = m;
                }
        for (int h = 0; h < heads; ++h)
            for (int c = 0; c < d; ++c) {
                double m = 0.0;
                for (int k = 0; k < dk; ++k) m += w[c * fromCols + d + h * dk + k] * b[h * dk + k];
                bb[h * d + c] = m;
            }
        for (int r = 0; r < d; ++r)
            for (int c = 0; c < d; ++c)
                bw[r * toCols + heads * d + c] = w[r * fromCols + 2 * d + c];
        for (int c = 0; c < d; ++c) bb[heads * d + c] = b[2 * d + c];
    }
    return out;
}

TEST(TrainVariants, FullBilinearAtRankDkReproducesTheFactoredHead) {
    const ModelShape factored = smallShape("learned"), bilinear = smallShape("full-bilinear");
    ThreadPool pool(2);
    Gpt2Network<double> a(factored, pool), b(bilinear, pool);
    Random random(5);
    const std::vector<double> params = randomParameters(a.layout(), random);
    const std::vector<double> converted = asBilinear(factored, params, bilinear);
    const int sequences = 2, length = 6;
    std::vector<int> inputs(sequences * length), targets(sequences * length);
    for (int i = 0; i < sequences * length; ++i) {
        inputs[i] = random.below(factored.vocab);
        targets[i] = random.below(factored.vocab);
    }
    const double lossA = a.forward(params.data(), inputs.data(), targets.data(), sequences, length);
    const double lossB =
        b.forward(converted.data(), inputs.data(), targets.data(), sequences, length);
    // Double precision; only the order of the score sums differs.
    EXPECT_NEAR(lossA, lossB, 1e-12);
    double worst = 0.0;
    for (size_t i = 0; i < a.logits().size(); ++i)
        worst = std::max(worst, std::abs(a.logits()[i] - b.logits()[i]));
    EXPECT_LT(worst, 1e-11);
    // A deliberately wrong c_h (the key bias's term instead) must show: the test can fail.
    std::vector<double> wrong = converted;
    wrong[ParameterLayout(bilinear).layers[0].attnBias] += 0.5;
    EXPECT_GT(
        std::abs(b.forward(wrong.data(), inputs.data(), targets.data(), sequences, length) - lossA),
        1e-6);
}

TEST(TrainVariants, FullBilinearStartsAtTheFactoredScoreScaleAndFullRank) {
    ModelShape shape;  // the defaults' shape: d_model 128, 4 heads, d_k 32
    shape.vocab = 50;
    shape.tying = AttentionTying::parse("full-bilinear");
    const ParameterLayout layout(shape);
    const std::vector<float> params = initialParameters(layout, shape, 1);
    const int d = shape.dModel, cols = shape.attentionColumns();
    double squares = 0.0;
    for (int r = 0; r < d; ++r)
        for (int c = 0; c < shape.heads * d; ++c) {
            const double v = params[layout.layers[0].attnWeight + r * cols + c];
            squares += v * v;
        }
    const double std = std::sqrt(squares / (d * shape.heads * d));
    // 0.02^2 sqrt(32) = 0.00226; 65,536 samples put the estimate within 1 %.
    EXPECT_NEAR(std, 0.0004 * std::sqrt(32.0), 0.0004 * std::sqrt(32.0) * 0.02);
    const BilinearRank rank = bilinearRank(shape, layout, params);
    // A random square W has (nearly) full numerical rank, far above d_k = 32: a Gaussian
    // matrix's smallest singular value is about 1/(2 d) of its largest, so now and then one
    // falls under the 1e-3 cut.
    EXPECT_GT(rank.numericalRank, d - 2);
    EXPECT_GT(rank.effectiveRank, 32);
}

TEST(TrainVariants, BilinearRankOfAFactoredProductIsDk) {
    ModelShape shape = smallShape("full-bilinear");
    shape.dModel = 16;
    shape.heads = 4;  // d_k 4
    const ParameterLayout layout(shape);
    Random random(3);
    std::vector<float> params(layout.size(), 0.0f);
    const int d = shape.dModel, cols = shape.attentionColumns(), dk = shape.headDim();
    for (const auto& layer : layout.layers)
        for (int h = 0; h < shape.heads; ++h) {
            std::vector<double> a(d * dk), b(d * dk);
            for (double& x : a) x = random.normal();
            for (double& x : b) x = random.normal();
            for (int r = 0; r < d; ++r)
                for (int c = 0; c < d; ++c) {
                    double m = 0.0;
                    for (int k = 0; k < dk; ++k) m += a[r * dk + k] * b[c * dk + k];
                    params[layer.attnWeight + r * cols + h * d + c] = static_cast<float>(m);
                }
        }
    const BilinearRank rank = bilinearRank(shape, layout, params);
    EXPECT_EQ(rank.numericalRank, dk);
    EXPECT_LE(rank.effectiveRank, dk + 1e-6);
    EXPECT_GT(rank.effectiveRank, 1.0);
}

TEST(TrainVariants, ReformerKeysAreUnitVectorsOfTheQueries) {
    const AttentionTying tying = AttentionTying::parse("shared-qk-reformer");
    const int length = 5, heads = 2, headDim = 3;
    const AttentionShape s = AttentionShape::forTying(tying, 1, length, heads, headDim);
    ASSERT_EQ(s.qColumn, s.kColumn);
    Random random(9);
    std::vector<double> p(length * s.projectionStride);
    for (double& x : p) x = random.normal();
    std::vector<double> probs(heads * length * length), out(length * heads * headDim);
    ThreadPool pool(1);
    attentionForward<double>(pool, s, p.data(), probs.data(), out.data());
    // Row 2 of head 1 by hand: softmax over j < 2 of q_2 . (q_j / |q_j|) / sqrt(d_k).
    const int h = 1, i = 2;
    auto q = [&](int t, int c) { return p[t * s.projectionStride + h * headDim + c]; };
    std::vector<double> e(2);
    for (int j = 0; j < 2; ++j) {
        double dot = 0.0, norm = 0.0;
        for (int c = 0; c < headDim; ++c) {
            dot += q(i, c) * q(j, c);
            norm += q(j, c) * q(j, c);
        }
        e[j] = std::exp(dot / std::sqrt(norm) / std::sqrt(3.0));
    }
    for (int j = 0; j < 2; ++j)
        EXPECT_NEAR(probs[(h * length + i) * length + j], e[j] / (e[0] + e[1]), 1e-12);
    EXPECT_EQ(probs[(h * length + i) * length + i], 0.0);
}

TEST(TrainVariants, SlotGradientNormsReadTheQAndKSources) {
    ModelShape shape = smallShape("tied-kv");
    const ParameterLayout layout(shape);
    std::vector<float> grads(layout.size(), 0.0f);
    const int d = shape.dModel, cols = shape.attentionColumns();
    // 1 everywhere in source 0 (Q) and 2 in source 1 (K and V) of layer 1.
    for (int r = 0; r < d; ++r)
        for (int c = 0; c < cols; ++c)
            grads[layout.layers[1].attnWeight + r * cols + c] = c < d ? 1.0f : 2.0f;
    const SlotGradientNorms norms = slotGradientNorms(shape, layout, grads);
    EXPECT_DOUBLE_EQ(norms.query, std::sqrt(d * d * 1.0));
    ASSERT_TRUE(norms.key);
    EXPECT_DOUBLE_EQ(*norms.key, std::sqrt(d * d * 4.0));
    shape.tying = AttentionTying::parse("full-bilinear");
    EXPECT_FALSE(slotGradientNorms(shape, ParameterLayout(shape),
                                   std::vector<float>(ParameterLayout(shape).size(), 0.0f))
                     .key);
}

// The probe inside training, on made-up ids: every evaluation point carries its score.
TEST(TrainVariants, EveryEvaluationScoresTheRelationProbe) {
    TrainingOptions o;
    o.shape = smallShape("scale-outside");
    o.steps = 20;
    o.batchSize = 2;
    o.threads = 1;
    Random random(4);
    TrainingData data;
    for (int i = 0; i < 200; ++i) data.train.push_back(random.below(o.shape.vocab));
    data.validation.assign(data.train.begin(), data.train.begin() + 20);
    data.relations = {{"k", {0, 1, 2}, {3}, {4}}, {"k", {0, 5}, {6, 7}, {8}}};
    const TrainingRun run = train(o, data);
    ASSERT_EQ(run.log.size(), 11u);  // step 0 and every 2 steps
    for (const LogEntry& e : run.log) {
        ASSERT_TRUE(e.relations);
        EXPECT_EQ(e.relations->pairs, 2);
        EXPECT_GT(e.attentionEntropy, 0.0);
        EXPECT_GT(e.gradNormQuery, 0.0);
        ASSERT_TRUE(e.gradNormKey);
    }
}

}  // namespace
}  // namespace qkv::train
