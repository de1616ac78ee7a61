# %% [markdown]
# # QKV Lab next to Hugging Face transformers
#
# The same ids through `qkvlab` and through transformers' own model, head by head. Run it as a
# script (`python3 examples/compare_with_transformers.py MODEL`) or cell by cell in Jupyter
# (each cell starts at a `%%` comment). MODEL is a folder or a Hub id (in Jupyter, set `location`
# below); without transformers (and torch) the comparison is skipped with a message and only QKV
# Lab's side runs.

# %%
import sys

import numpy as np

import qkvlab

location = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "gpt2"
sentence = "Given the query network, the keys neural and social respond alike."

model = qkvlab.open(location)
print(model)
tokens = model.tokenize(sentence)
ids = tokens["ids"]
print(len(ids), "tokens:", tokens["pieces"])

# %% [markdown]
# Every head's attention under the learned matrices, and under shared-QK (keys := queries):
# how much does each head move when W_K is replaced by W_Q?

# %%
learned = model.attention(ids)
shared = model.attention(ids, config="shared-qk")
change = 0.5 * np.abs(learned.attention - shared.attention).sum(axis=-1).max(axis=-1)
layer, head = np.unravel_index(np.argmax(change), change.shape)
print("largest total-variation change under shared-qk: layer %d head %d (%.3f)"
      % (layer, head, change[layer, head]))
learned  # in Jupyter: the first head, drawn inline by the app's figure builder

# %% [markdown]
# The same ids through transformers (eager attention, float32), if it is installed.

# %%
try:
    import torch
    from transformers import AutoModel
except ImportError as missing:
    print("skipped the comparison with transformers: %s (pip install torch transformers)"
          % missing)
else:
    reference = AutoModel.from_pretrained(
        model.location, attn_implementation="eager", torch_dtype=torch.float32)
    with torch.no_grad():
        outputs = reference(torch.tensor([ids]), output_attentions=True)
    theirs = np.stack([a[0].numpy() for a in outputs.attentions])  # [layer, head, q, k]
    difference = np.abs(theirs - learned.attention).max()
    print("largest difference from transformers over every head: %.2e" % difference)
