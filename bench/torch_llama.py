#!/usr/bin/env python3
"""Plain PyTorch bfloat16 forward of a Llama safetensors checkpoint (sharded, with its index):
the peer qkvlab-bench --shape llama3.2-1b and llama3-8b compare against. The shards are
memory-mapped and viewed in place (torch.frombuffer), so the 16 GB of an 8B model are not
copied; the forward runs in bfloat16 as the weights are stored, with the rope llama3 frequencies
and the embedding tie of config.json, returning every head's attention of every layer as
attn_implementation="eager" with output_attentions does, and the last position's logits.

Usage: torch_llama.py MODEL_DIR --tokens 64,1024 [--float32] [--repeats N]
Prints one JSON object: load seconds and, per token count, the forward seconds (the second of
two forwards; with --repeats N, the best of N after a first). --float32 widens the weights once
after loading (a float32 copy of the model, not timed) and computes in float32, as qkvlab does:
the peer of the same arithmetic.
"""
import argparse
import json
import math
import mmap
import os
import struct
import time

import torch
import torch.nn.functional as F


def load_shards(folder):
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        files = sorted(set(json.load(f)["weight_map"].values()))
    tensors, maps = {}, []
    for name in files:
        with open(os.path.join(folder, name), "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        maps.append(data)
        (header_len,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + header_len])
        base = 8 + header_len
        for key, info in header.items():
            if key == "__metadata__":
                continue
            assert info["dtype"] == "BF16", "this reference reads bfloat16 checkpoints"
            begin, end = info["data_offsets"]
            count = (end - begin) // 2
            t = torch.frombuffer(data, dtype=torch.bfloat16, count=count, offset=base + begin)
            tensors[key] = t.reshape(info["shape"])
    return tensors, maps


def inverse_frequencies(cfg, dk):
    """theta^(-2i/d_k), with rope llama3's scaling: long wavelengths divided by the factor,
    short ones kept, the band between interpolated (Llama 3.1's published recipe)."""
    inv = cfg["rope_theta"] ** (-torch.arange(0, dk, 2, dtype=torch.float32) / dk)
    scaling = cfg.get("rope_scaling") or {}
    if scaling.get("rope_type") != "llama3":
        return inv
    factor, old = scaling["factor"], scaling["original_max_position_embeddings"]
    low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
    wavelength = 2 * math.pi / inv
    smooth = ((old / wavelength - low) / (high - low)).clamp(0, 1)
    return (1 - smooth) * inv / factor + smooth * inv


def rope(x, inv):
    n, heads, dk = x.shape
    angles = torch.outer(torch.arange(n, dtype=torch.float32), inv)
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1).to(x.dtype)[:, None, :]
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1).to(x.dtype)[:, None, :]
    half = torch.cat([-x[..., dk // 2 :], x[..., : dk // 2]], dim=-1)
    return x * cos + half * sin


def rms_norm(x, weight, eps):
    variance = x.float().pow(2).mean(-1, keepdim=True)
    return weight * (x.float() * torch.rsqrt(variance + eps)).to(x.dtype)


def forward(w, cfg, ids):
    layers, heads, kv = cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    d = cfg["hidden_size"]
    dk = cfg.get("head_dim", d // heads)
    eps, inv = cfg["rms_norm_eps"], inverse_frequencies(cfg, dk)
    n = ids.shape[0]
    x = w["model.embed_tokens.weight"][ids]
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    attentions = []
    for l in range(layers):
        p = f"model.layers.{l}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = F.linear(h, w[p + "self_attn.q_proj.weight"]).view(n, heads, dk)
        k = F.linear(h, w[p + "self_attn.k_proj.weight"]).view(n, kv, dk)
        v = F.linear(h, w[p + "self_attn.v_proj.weight"]).view(n, kv, dk)
        q, k = rope(q, inv), rope(k, inv)
        k = k.repeat_interleave(heads // kv, dim=1)
        v = v.repeat_interleave(heads // kv, dim=1)
        scores = (q.transpose(0, 1) @ k.transpose(0, 1).transpose(1, 2)) / (dk ** 0.5)
        probs = torch.softmax(scores.float().masked_fill(~mask, float("-inf")), dim=-1)
        attentions.append(probs)
        a = (probs.to(x.dtype) @ v.transpose(0, 1)).transpose(0, 1).reshape(n, heads * dk)
        x = x + F.linear(a, w[p + "self_attn.o_proj.weight"])
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = F.silu(F.linear(h, w[p + "mlp.gate_proj.weight"]))
        x = x + F.linear(gate * F.linear(h, w[p + "mlp.up_proj.weight"]), w[p + "mlp.down_proj.weight"])
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])  # tied when absent
    logits = F.linear(rms_norm(x[-1:], w["model.norm.weight"], eps), head)
    return attentions, logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--tokens", default="64", help="token counts, comma-separated")
    parser.add_argument("--float32", action="store_true", help="compute in float32")
    parser.add_argument(
        "--repeats", type=int, default=1, help="forwards timed after the first; the best is kept"
    )
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count())
    with open(os.path.join(args.model, "config.json")) as f:
        cfg = json.load(f)
    start = time.perf_counter()
    weights, maps = load_shards(args.model)
    load = time.perf_counter() - start
    if args.float32:
        weights = {name: t.float() for name, t in weights.items()}
    seconds = {}
    for n in [int(t) for t in args.tokens.split(",")]:
        ids = torch.randint(0, cfg["vocab_size"], (n,), generator=torch.Generator().manual_seed(0))
        with torch.inference_mode():
            forward(weights, cfg, ids)  # first touch of the mapped weights, warm caches
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                forward(weights, cfg, ids)
                best = min(best, time.perf_counter() - start)
            seconds[str(n)] = best
    print(json.dumps({"load_seconds": load, "forward_seconds": seconds}))


if __name__ == "__main__":
    main()
