"""QKV Lab in Python: every head's attention and the W_Q / W_K / W_V analysis of a model,
computed by the same core as the app and ``qkvlab-cli``.

    import qkvlab
    m = qkvlab.open("gpt2")                       # a folder, a GGUF file or a Hub id
    r = m.attention("The cat sat on the mat.", config="shared-qk")
    r.attention.shape                             # (layers, heads, queries, keys), float32
    m.analyze()                                   # one record per head

Errors are ``qkvlab.Error`` with the message the command line prints. Long calls release the
GIL, report progress to ``progress(done, total)`` (without a callback, a tqdm bar when tqdm is
installed and the call lasts over half a second; ``progress=False``: none), and Ctrl-C cancels
them.
"""

import json

from ._native import Error, AttentionResult, open as _open_native, survey as _survey_native

__all__ = ["Error", "open", "survey", "Model", "AttentionResult"]


# A bar appears only for work that lasts: a call that ends sooner prints nothing.
_BAR_DELAY_SECONDS = 0.5


def _progress_bar(description, unit="layer"):
    """A tqdm bar as a progress callback, or None without tqdm."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, None
    bar = tqdm(desc=description, unit=unit, leave=False, delay=_BAR_DELAY_SECONDS)

    def report(done, total):
        bar.total = total
        bar.update(done - bar.n)  # shown once the bar's delay has passed, as tqdm decides

    return report, bar


def _run(call, description, progress, *args):
    bar = None
    if progress is False:
        progress = None
    elif progress is None:
        progress, bar = _progress_bar(description)
    try:
        return call(*args, progress)
    finally:
        if bar is not None:
            bar.close()


def _run_analysis(call, progress, round_trip_progress, *args):
    """An analysis: W_U W_E (the copying scores' product, in blocks) and then the layers, each
    reported to its own callback, or each to a tqdm bar when neither callback is given."""
    bars = []
    if progress is False:
        progress, round_trip_progress = None, round_trip_progress or None
    elif progress is None and round_trip_progress is None:
        round_trip_progress, bar = _progress_bar("W_U W_E", unit="block")
        bars.append(bar)
        progress, bar = _progress_bar("analysis")
        bars.append(bar)
    try:
        return call(*args, progress, round_trip_progress)
    finally:
        for bar in bars:
            if bar is not None:
                bar.close()


def _selection(value):
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    return list(value)


class Model:
    """A model opened from a folder, a GGUF file or a Hugging Face id (see ``qkvlab.open``)."""

    def __init__(self, native, location):
        self._native = native
        self.location = location
        self.info = json.loads(native.info_json())

    def __repr__(self):
        i = self.info
        return "<qkvlab.Model {} ({}, {} layers x {} heads, d_model {})>".format(
            i["model"], i["architecture"], i["layers"], i["heads"], i["d_model"])

    def tokenize(self, text):
        """The ids and vocabulary pieces of ``text``, as the model's own tokenizer gives them."""
        ids, pieces = self._native.tokenize(text)
        return {"ids": ids, "pieces": pieces}

    def _ids(self, text_or_ids):
        if isinstance(text_or_ids, str):
            if not text_or_ids.strip():
                raise Error("the sentence is empty: type a sentence")
            return self._native.tokenize(text_or_ids)[0]
        return [int(i) for i in text_or_ids]

    def attention(self, text_or_ids, config="learned", layers=None, heads=None,
                  scale_outside=False, mask_self=False, scores=True, vectors=False,
                  target=None, progress=None):
        """Every chosen head's attention for a sentence (or ids) under a W configuration.

        ``layers``/``heads``: an index, a list, or None for all. ``target``: an encoder-decoder
        model's target sentence (or ids); the decoder start token alone when None. The result's
        ``attention`` and ``scores`` are float32 arrays [layer, head, query, key] that share its
        memory; ``q``, ``k``, ``v`` are there with ``vectors=True``; ``sink_shares`` [layer, head,
        query] where the heads have attention sinks (gpt-oss).
        """
        ids = self._ids(text_or_ids)
        target_ids = []
        if target is not None:
            target_ids = (self._native.target_ids(target) if isinstance(target, str)
                          else [int(i) for i in target])
        return _run(self._native.attention, "forward", progress, ids, target_ids, config,
                    scale_outside, mask_self, _selection(layers), _selection(heads), scores,
                    vectors)

    def analyze(self, config="learned", text_or_ids=None, copying_score=True,
                gqa_pairing="hf", progress=None, round_trip_progress=None):
        """Per-head weight metrics as records (``pandas.DataFrame(m.analyze())`` makes a table).

        Each record has the layer and head and the metrics ``qkvlab-cli analyze --json`` gives;
        with a sentence, each head's score symmetry too. ``analyze_layers`` gives the per-layer
        ones. ``round_trip_progress(done, total)`` reports the copying score's W_U W_E product
        block by block (minutes for an 8B model when it is not cached), ``progress`` the layers.
        """
        ids = [] if text_or_ids is None else self._ids(text_or_ids)
        doc = json.loads(_run_analysis(self._native.analyze, progress, round_trip_progress,
                                       config, ids, copying_score, gqa_pairing))
        records = []
        for layer_index, layer in enumerate(doc["layers"]):
            for head_index, head in enumerate(layer["heads"]):
                records.append(dict({"layer": layer_index, "head": head_index}, **head))
        return records

    def analyze_layers(self, config="learned", copying_score=False, gqa_pairing="hf",
                       progress=None, round_trip_progress=None):
        """Per-layer metrics (the W_Q W_K^T symmetry and directionality of each layer)."""
        doc = json.loads(_run_analysis(self._native.analyze, progress, round_trip_progress,
                                       config, [], copying_score, gqa_pairing))
        return [dict({"layer": i}, **{k: v for k, v in layer.items() if k != "heads"})
                for i, layer in enumerate(doc["layers"])]


def open(location, revision="main", backend="cpu"):
    """Opens a model folder, a GGUF file (``ollama:NAME``, ``lmstudio:...`` too) or a Hugging
    Face model id (from the cache, else downloaded), as the app and the command line do."""
    return Model(_open_native(str(location), revision, backend), str(location))


def survey(locations, copying_score=True, progress=None):
    """Saponati et al.'s table for a list of models (folders or Hub ids): per model the medians
    over layers and heads of the W_QK symmetry and directionality and the heads' median copying
    score, as ``qkvlab-cli survey --json`` gives them. One model is open at a time."""
    return json.loads(_run(_survey_native, "survey", progress, [str(l) for l in locations],
                           copying_score))


def _block_property(stack, what):
    return property(lambda self: self._block(stack, what))


AttentionResult.attention = _block_property("self", "attention")
AttentionResult.scores = _block_property("self", "scores")
AttentionResult.q = _block_property("self", "q")
AttentionResult.k = _block_property("self", "k")
AttentionResult.v = _block_property("self", "v")
AttentionResult.decoder_attention = _block_property("decoder", "attention")
AttentionResult.decoder_scores = _block_property("decoder", "scores")
AttentionResult.cross_attention = _block_property("cross", "attention")
AttentionResult.cross_scores = _block_property("cross", "scores")
AttentionResult.layers = property(lambda self: self._selection("self")[0])


def _sink_shares(result):
    """What each query row's attention sink took, [layer, head, query] (None without sinks)."""
    layers, heads, shares = result._selection("self")
    if not shares:
        return None
    import numpy
    return numpy.array(shares).reshape(len(layers), len(heads), -1)


AttentionResult.sink_shares = property(_sink_shares)
AttentionResult.heads = property(lambda self: self._selection("self")[1])


def _result_repr(result):
    tokens = list(result.tokens)
    shown = ", ".join(repr(t) for t in tokens[:6]) + (", ..." if len(tokens) > 6 else "")
    blocks = [("attention", result.attention)]
    if result.target_ids:
        blocks += [("decoder_attention", result.decoder_attention),
                   ("cross_attention", result.cross_attention)]
    shapes = ", ".join("%s %s" % (name, tuple(block.shape)) for name, block in blocks)
    return "<qkvlab.AttentionResult {}, config {}, {} tokens [{}], {}>".format(
        result.model_name, result.config, len(tokens), shown, shapes)


AttentionResult.__repr__ = _result_repr
