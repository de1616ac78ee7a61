#!/usr/bin/env python3
"""Exactness of qkvlab on a bf16 Llama checkpoint: layer 0's attention recomputed in float64 from
the same stored weights, against `qkvlab-cli attention --layer 0 --json`.

Usage: check_llama_layer0.py MODEL_DIR QKVLAB_CLI [--tokens 64]
Prints the largest difference of attention probabilities over every head of layer 0, and exits 1
when it exceeds 1e-4 (the bound the forward keeps: float32 arithmetic on the widened weights).
"""
import argparse
import json
import mmap
import os
import struct
import subprocess

import torch


def tensor(folder, name):
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        shard = json.load(f)["weight_map"][name]
    with open(os.path.join(folder, shard), "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (header_len,) = struct.unpack("<Q", data[:8])
    info = json.loads(data[8 : 8 + header_len])[name]
    begin, end = info["data_offsets"]
    t = torch.frombuffer(data, dtype=torch.bfloat16, count=(end - begin) // 2, offset=8 + header_len + begin)
    return t.reshape(info["shape"]).to(torch.float64)


def rope(x, theta):
    n, heads, dk = x.shape
    inv = theta ** (-torch.arange(0, dk, 2, dtype=torch.float64) / dk)
    angles = torch.outer(torch.arange(n, dtype=torch.float64), inv)
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1)[:, None, :]
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1)[:, None, :]
    return x * cos + torch.cat([-x[..., dk // 2 :], x[..., : dk // 2]], dim=-1) * sin


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("cli")
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    with open(os.path.join(args.model, "config.json")) as f:
        cfg = json.load(f)
    heads, kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dk = cfg.get("head_dim", cfg["hidden_size"] // heads)
    ids = torch.randint(0, cfg["vocab_size"], (args.tokens,), generator=torch.Generator().manual_seed(1))

    x = tensor(args.model, "model.embed_tokens.weight")[ids]
    h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + cfg["rms_norm_eps"])
    h = h * tensor(args.model, "model.layers.0.input_layernorm.weight")
    q = (h @ tensor(args.model, "model.layers.0.self_attn.q_proj.weight").T).view(-1, heads, dk)
    k = (h @ tensor(args.model, "model.layers.0.self_attn.k_proj.weight").T).view(-1, kv, dk)
    q, k = rope(q, cfg["rope_theta"]), rope(k, cfg["rope_theta"])
    k = k.repeat_interleave(heads // kv, dim=1)
    scores = (q.transpose(0, 1) @ k.transpose(0, 1).transpose(1, 2)) / dk ** 0.5
    mask = torch.ones(args.tokens, args.tokens, dtype=torch.bool).tril()
    expected = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)

    ids_text = ",".join(str(int(i)) for i in ids)
    out = subprocess.run([args.cli, "attention", "--model", args.model, "--ids", ids_text,
                          "--layer", "0", "--no-scores", "--json"], check=True, capture_output=True, text=True)
    layer = json.loads(out.stdout)["layers"][0]
    worst = 0.0
    for head in layer["heads"]:
        actual = torch.tensor(head["attention"], dtype=torch.float64)
        worst = max(worst, (actual - expected[head["head"]]).abs().max().item())
    print(f"layer 0, {len(layer['heads'])} heads, {args.tokens} tokens: max |qkvlab - float64| = {worst:.3e}")
    raise SystemExit(0 if worst <= 1e-4 else 1)


if __name__ == "__main__":
    main()
