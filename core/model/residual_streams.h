#pragma once
// Internal to the forward pass: Gemma 3n's AltUp streams (Architecture::streams) and per-layer
// inputs (Architecture::perLayerInputs) around the layers. The streams travel as one tensor,
// stream i in rows [i·n, (i+1)·n); each layer's step is LayerRunner::runStreams.
#include <memory>
#include <vector>

#include "core/model/device_model.h"
#include "core/model/layer_runner.h"

namespace qkv {

// Every token's per-layer inputs (n x layers·width): (norm(projection(x0) · d^-½) + the table's
// rows · √width) · 2^-½, each width-wide part normed on its own.
std::unique_ptr<Tensor> perLayerInputs(const LayerRunner& runner, const ModelWeights& weights,
                                       const DeviceModel& device, const std::vector<int>& ids,
                                       const Tensor& embedded);

// The streams from the scaled token embedding x0 (n x d_model): x0, then each projection of it
// rescaled to x0's RMS per row.
std::unique_ptr<Tensor> streamsFrom(const LayerRunner& runner, const DeviceModel& device,
                                    const Tensor& embedded);

// The last layer's streams merged into the output head's input (n x d_model): the others
// projected back and rescaled to the first one's RMS, then the mean of all.
std::unique_ptr<Tensor> mergedStreams(const LayerRunner& runner, const DeviceModel& device,
                                      const Tensor& streams);

}  // namespace qkv
