#!/usr/bin/env python3
"""The head atlas's scores in plain PyTorch: the reference qkvlab-bench --shape atlas compares
against, run in the same invocation. For every sequence (token ids qkvlab's tokenizer made, the
same sequences the atlas reads), the GPT-2 forward of torch_reference.py keeps each layer's
scores and probabilities (what a forward hook on the attention returns) and computes, for all
heads at once, the atlas's nine scores (docs/definitions.md, "Head detectors") and each row
score's best row, summed over the sequences.

Usage: torch_atlas.py MODEL_DIR SEQUENCES.json
Prints one JSON object: seconds, tokens, sequences, threads.
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference import forward, load_safetensors  # noqa: E402

FIRST_EXAMPLE_QUERY = 4  # core/analysis/head_detectors.h


def excess(norms):
    """The norms' mass above mean + 2 standard deviations, per head."""
    threshold = norms.mean(-1, keepdim=True) + 2 * norms.std(-1, keepdim=True)
    return torch.where(norms > threshold, norms - threshold, torch.zeros_like(norms)).sum(-1)


def head_scores(scores, probs, ids):
    """[heads, 9] scores and [heads, 7] best-row values of one layer."""
    n = ids.shape[0]
    a = probs.double().abs()
    i = torch.arange(n).view(n, 1)
    j = torch.arange(n).view(1, n)
    previous = torch.zeros(n)
    previous[1:] = ids[:-1].double()
    patterns = torch.stack([
        j == i - 1,                                          # previous token
        (j < i) & (ids.view(1, n) == ids.view(n, 1)),        # duplicate token
        (j <= i) & (j >= 1) & (previous.view(1, n) == ids.view(n, 1).double()),  # induction
        (j == 0) & (j <= i),                                 # first token
        j == i,                                              # self
    ]).double()                                              # [5, n, n]
    row_mass = a.sum(-1)                                     # [H, n]
    on = torch.einsum("hij,pij->hpi", a, patterns)           # [H, 5, n]
    shares = on.sum(-1) / row_mass.sum(-1, keepdim=True)     # [H, 5]
    p = a / row_mass.unsqueeze(-1)
    entropy_rows = -(p * torch.log(torch.where(p > 0, p, torch.ones_like(p)))).sum(-1)
    distance_rows = (p * (i - j).abs().double()).sum(-1)
    s = scores.double()
    symmetry = (s * s.transpose(1, 2)).sum((1, 2)) / (s * s).sum((1, 2))
    r, c = excess(s.norm(dim=2)), excess(s.norm(dim=1))
    direction = torch.where(r + c > 0, (c - r) / (r + c), torch.zeros_like(r))
    values = torch.cat([shares, entropy_rows.mean(-1, keepdim=True),
                        distance_rows.mean(-1, keepdim=True), symmetry.unsqueeze(1),
                        direction.unsqueeze(1)], dim=1)
    rows = torch.cat([on / row_mass.unsqueeze(1), entropy_rows.unsqueeze(1),
                      distance_rows.unsqueeze(1)], dim=1)[:, :, FIRST_EXAMPLE_QUERY:]
    best = rows.max(-1).values if rows.shape[-1] > 0 else torch.zeros(rows.shape[:2])
    return values, best


def main():
    model, sequences_file = sys.argv[1], sys.argv[2]
    torch.set_num_threads(os.cpu_count())
    with open(os.path.join(model, "config.json")) as f:
        cfg = json.load(f)
    weights = load_safetensors(os.path.join(model, "model.safetensors"))
    with open(sequences_file) as f:
        sequences = json.load(f)
    heads = cfg["n_head"]
    sums = torch.zeros(cfg["n_layer"], heads, 9, dtype=torch.float64)
    best = torch.full((cfg["n_layer"], heads, 7), -1.0, dtype=torch.float64)
    tokens = 0
    start = time.perf_counter()
    with torch.no_grad():
        for ids in sequences:
            ids = torch.tensor(ids)
            tokens += ids.shape[0]
            _, attentions = forward(weights, cfg, ids)
            for layer, (scores, probs) in enumerate(attentions):
                values, rows = head_scores(scores, probs, ids)
                sums[layer] += values
                best[layer] = torch.maximum(best[layer], rows)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "tokens": tokens, "sequences": len(sequences),
                      "threads": torch.get_num_threads(),
                      "mean_induction": float(sums[:, :, 2].mean() / len(sequences))}))


if __name__ == "__main__":
    main()
