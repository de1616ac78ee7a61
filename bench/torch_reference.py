#!/usr/bin/env python3
"""Plain PyTorch forward of a GPT-2 safetensors checkpoint: the reference qkvlab-bench compares
against, run in the same invocation. It does the work qkvlab does for a forward with capture:
every layer, every head's attention probabilities returned, logits at the last position.

Usage: torch_reference.py MODEL_DIR --tokens 16,64,256,1024 --repeats 5
Prints one JSON object: load seconds and median forward seconds per token count.
Needs Debian's python3-torch; with libopenblas0-pthread installed torch runs its GEMMs on
OpenBLAS (without it, on the reference BLAS, about 30x slower).
"""
import argparse
import json
import os
import statistics
import struct
import time

import torch
import torch.nn.functional as F


def load_safetensors(path):
    """Reads every tensor into memory (what torch-based tools do: a copy, not a map)."""
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", "reference script reads float32 checkpoints"
        begin, end = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[base + begin : base + end]), dtype=torch.float32)
        tensors[name] = t.reshape(info["shape"])
    return tensors


def forward(w, cfg, ids):
    n_layer, n_head, d = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    dk = d // n_head
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    n = ids.shape[0]
    x = w["wte.weight"][ids] + w["wpe.weight"][:n]
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    attentions = []
    for l in range(n_layer):
        p = f"h.{l}."
        h = F.layer_norm(x, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = torch.addmm(w[p + "attn.c_attn.bias"], h, w[p + "attn.c_attn.weight"])
        q, k, v = qkv.split(d, dim=1)
        q = q.view(n, n_head, dk).transpose(0, 1)
        k = k.view(n, n_head, dk).transpose(0, 1)
        v = v.view(n, n_head, dk).transpose(0, 1)
        scores = (q @ k.transpose(1, 2)) / (dk ** 0.5)
        probs = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        attentions.append((scores, probs))
        a = (probs @ v).transpose(0, 1).reshape(n, d)
        x = x + torch.addmm(w[p + "attn.c_proj.bias"], a, w[p + "attn.c_proj.weight"])
        h = F.layer_norm(x, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = F.gelu(torch.addmm(w[p + "mlp.c_fc.bias"], h, w[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(w[p + "mlp.c_proj.bias"], h, w[p + "mlp.c_proj.weight"])
    last = F.layer_norm(x[-1:], (d,), w["ln_f.weight"], w["ln_f.bias"], eps)
    return last @ w["wte.weight"].T, attentions


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--tokens", default="16,64,256,1024")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count())
    torch.manual_seed(0)

    with open(os.path.join(args.model, "config.json")) as f:
        cfg = json.load(f)
    start = time.perf_counter()
    weights = load_safetensors(os.path.join(args.model, "model.safetensors"))
    load_seconds = time.perf_counter() - start

    result = {"load_seconds": load_seconds, "threads": torch.get_num_threads(),
              "torch": torch.__version__, "forward_seconds": {}}
    with torch.no_grad():
        for n in [int(t) for t in args.tokens.split(",")]:
            ids = torch.randint(0, cfg["vocab_size"], (n,))
            forward(weights, cfg, ids)  # warm-up
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                forward(weights, cfg, ids)
                times.append(time.perf_counter() - start)
            result["forward_seconds"][str(n)] = statistics.median(times)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
