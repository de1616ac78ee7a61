#!/usr/bin/env python3
"""How far any float32 forward may be from the exact attention: a float64 numpy forward of a
plain Llama checkpoint (one safetensors file: RMSNorm, rotate-half RoPE, grouped-query attention,
SwiGLU; stories260K is one) against qkvlab-cli's CPU and Vulkan forwards of the same ids.

Where the scores are large and the softmax sharp (shared-qk makes each token's self-score |q|²),
float32's rounding of the residual stream moves the probabilities by up to ~1e-4 however it is
summed: the two backends then differ from each other by about as much as each differs from the
exact value, and no tolerance between two float32 forwards can be tighter than that gap.

Usage: float32_floor.py MODEL_DIR --text TEXT [--config learned|shared-qk] [--cli PATH]
Prints, for each backend, max |A_float32 - A_float64| over every layer and head, and the
largest CPU-vs-Vulkan difference.
"""
import argparse
import json
import os
import struct
import subprocess
import tempfile

import numpy as np


def load(folder):
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
        data = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise SystemExit("%s is %s: this reference reads float32 files" % (name, entry["dtype"]))
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], np.float32).reshape(entry["shape"])
    with open(os.path.join(folder, "config.json")) as f:
        return tensors, json.load(f)


def rms_norm(x, weight, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * weight


def rotate(x, positions, theta):  # rotate-half RoPE over the last axis
    half = x.shape[-1] // 2
    inv = theta ** (-np.arange(half, dtype=np.float64) * 2 / x.shape[-1])
    angle = positions[:, None] * inv[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], -1)


def forward(tensors, c, ids, shared_qk):
    w = {k: v.astype(np.float64) for k, v in tensors.items()}
    n, heads, kv = len(ids), c["num_attention_heads"], c["num_key_value_heads"]
    d = c.get("head_dim") or c["hidden_size"] // heads
    positions = np.arange(n, dtype=np.float64)
    x = w["model.embed_tokens.weight"][ids]
    attentions = []
    for l in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = rms_norm(x, w[p + "input_layernorm.weight"], c["rms_norm_eps"])
        q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(n, heads, d).transpose(1, 0, 2)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(n, kv, d).transpose(1, 0, 2)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(n, kv, d).transpose(1, 0, 2)
        q = rotate(q, positions, c["rope_theta"])
        k = q if shared_qk else np.repeat(rotate(k, positions, c["rope_theta"]), heads // kv, 0)
        v = np.repeat(v, heads // kv, 0)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        attentions.append(a)
        o = (a @ v).transpose(1, 0, 2).reshape(n, heads * d)
        x = x + o @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], c["rms_norm_eps"])
        gate = h @ w[p + "mlp.gate_proj.weight"].T
        up = h @ w[p + "mlp.up_proj.weight"].T
        x = x + (gate / (1 + np.exp(-gate)) * up) @ w[p + "mlp.down_proj.weight"].T
    return attentions


def qkvlab(cli, folder, text, config, backend):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "a.npz")
        subprocess.run([cli, "attention", "--model", folder, "--text", text, "--config", config,
                        "--backend", backend, "--npz", path], check=True, capture_output=True)
        archive = np.load(path)
        return [int(i) for i in archive["ids"]], archive


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--text", required=True)
    parser.add_argument("--config", default="shared-qk", choices=["learned", "shared-qk"])
    parser.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                      "app", "qkvlab-cli"))
    args = parser.parse_args()
    tensors, config = load(args.model)
    runs = {b: qkvlab(args.cli, args.model, args.text, args.config, b) for b in ("cpu", "vulkan")}
    ids = runs["cpu"][0]
    exact = forward(tensors, config, ids, args.config == "shared-qk")

    def gap(archive, other=None):
        worst = 0.0
        for l, layer in enumerate(exact):
            for h in range(layer.shape[0]):
                key = "layer%d_head%d_attention" % (l, h)
                ref = other[key] if other is not None else layer[h]
                worst = max(worst, float(np.abs(archive[key] - ref).max()))
        return worst

    report = {"tokens": len(ids), "config": args.config,
              "cpu_vs_float64": gap(runs["cpu"][1]), "vulkan_vs_float64": gap(runs["vulkan"][1]),
              "cpu_vs_vulkan": gap(runs["cpu"][1], runs["vulkan"][1])}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
