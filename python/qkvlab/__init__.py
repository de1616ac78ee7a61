"""QKV Lab in Python: every head's attention and the W_Q / W_K / W_V analysis of a model,
computed by the same core as the app and ``qkvlab-cli``.

    import qkvlab
    m = qkvlab.open("gpt2")                       # a folder, a GGUF file or a Hub id
    r = m.attention("The cat sat on the mat.", config="shared-qk")
    r.attention.shape                             # (layers, heads, queries, keys), float32
    m.analyze()                                   # one record per head
    a = qkvlab.atlas(m, "corpus.txt", out="corpus.atlas")   # every head over a corpus
    a.heads["induction"]                          # one record per head (numpy)

Errors are ``qkvlab.Error`` with the message the command line prints. Long calls release the
GIL, report progress to ``progress(done, total)`` (without a callback, a tqdm bar when tqdm is
installed and the call lasts over half a second; ``progress=False``: none), and Ctrl-C cancels
them.
"""

import json

from . import _native
from ._native import Error, AttentionResult, open as _open_native, survey as _survey_native

__all__ = ["Error", "open", "survey", "atlas", "read_atlas", "Atlas", "Model", "AttentionResult"]


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

    def __init__(self, native, location, revision="main", backend="cpu"):
        self._native = native
        self.location = location
        self.revision = revision
        self.backend = backend
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
    return Model(_open_native(str(location), revision, backend), str(location), revision, backend)


def survey(locations, copying_score=True, progress=None):
    """Saponati et al.'s table for a list of models (folders or Hub ids): per model the medians
    over layers and heads of the W_QK symmetry and directionality and the heads' median copying
    score, as ``qkvlab-cli survey --json`` gives them. One model is open at a time."""
    return json.loads(_run(_survey_native, "survey", progress, [str(l) for l in locations],
                           copying_score))


class Atlas:
    """An atlas file's tables (``qkvlab.atlas``, ``qkvlab-cli atlas``; docs/atlas.md).

    ``heads``: a numpy record array, one record per head: ``layer``, ``head``, ``kind`` and each
    score's mean over the corpus (NaN where no sequence gave one), as ``qkvlab-cli atlas --show
    --json`` gives them (``pandas.DataFrame(a.heads)`` makes a table). ``examples(score)``: each
    head's best examples for a score. ``provenance``: the model, corpus, options and counts.
    """

    def __init__(self, path):
        self.path = str(path)
        doc = json.loads(_native.atlas_json(self.path))
        heads = doc.pop("heads")
        self.provenance = doc
        self.heads = _records(heads, {"layer": "i4", "head": "i4"}, text=("kind",))

    def examples(self, score):
        """Each head's best examples for ``score`` (a column of ``heads``): ``layer``, ``head``,
        ``rank`` (from 1), ``value``, ``document``, ``first_token``, ``query`` (-1: the whole
        sequence) and ``context`` (the text up to the query, its token between ⟨ ⟩)."""
        rows = json.loads(_native.atlas_examples_json(self.path, str(score)))
        for row in rows:
            row["query"] = -1 if row["query"] is None else row["query"]
        return _records(rows, {"layer": "i4", "head": "i4", "rank": "i4", "document": "i8",
                               "first_token": "i8", "query": "i4"}, text=("context",))

    def __repr__(self):
        p = self.provenance
        return "<qkvlab.Atlas {} of {} over {}: {} documents, {} tokens, {} heads>".format(
            self.path, p["model"], p["corpus"], p["documents"], p["tokens"], len(self.heads))


def _records(rows, integers, text=()):
    """A numpy record array of JSON objects: the named integer columns, text columns, and every
    other column a float64 (NaN for null)."""
    import numpy
    names = list(rows[0].keys()) if rows else list(integers) + list(text)
    types = []
    for name in names:
        if name in integers:
            types.append((name, integers[name]))
        elif name in text:
            width = max([len(r[name]) for r in rows] + [1])
            types.append((name, "U%d" % width))
        else:
            types.append((name, "f8"))
    values = [tuple(float("nan") if r[n] is None else r[n] for n in names) for r in rows]
    return numpy.rec.array(numpy.array(values, dtype=types))


def read_atlas(path):
    """Opens an atlas file that ``qkvlab.atlas`` or ``qkvlab-cli atlas`` wrote."""
    return Atlas(path)


def atlas(model, corpus=None, out=None, client=None, context=256, max_tokens=None,
          configs=(), examples=5, backend=None, progress=None):
    """Scores every head of ``model`` over a corpus into the atlas file ``out`` and returns its
    tables (``Atlas``), as ``qkvlab-cli atlas`` does: the same file, resumed where it stops.

    ``model``: a ``qkvlab.Model`` or what ``qkvlab.open`` takes. ``corpus``: a UTF-8 text file
    (paragraphs are documents) or a ``.jsonl`` file of objects with a ``"text"``; None: the
    project's 400 built-in stories. ``configs``: configurations whose change against learned
    each head gets (``"shared-qk"``, ``"tied-kv"``, ...). ``examples``: best examples kept per
    head and score. ``progress(done, total)`` is told documents (a tqdm bar without it).

    ``client``: a ``dask.distributed.Client``. The corpus is then cut into blocks of
    ``qkvlab.ATLAS_BLOCK`` documents, each computed by a worker (which opens the model once,
    memory-mapped, from the same location: a folder every worker can read, or a Hub id in its
    cache) and joined here in document order, so that the file is the one a single process
    writes, to the last bit. Any Dask deployment works: a ``LocalCluster``, or the clusters of
    dask-jobqueue (Slurm, PBS, ...), dask-kubernetes or SSH.
    """
    if out is None:
        raise Error("out: the atlas file to write, or to resume where it stopped")
    if not isinstance(model, Model):
        model = open(model, backend=backend or "cpu")
    elif backend is not None and backend != model.backend:
        model = open(model.location, model.revision, backend)
    run = _native.AtlasRun(model._native, model.location, "" if corpus is None else str(corpus),
                           str(out), int(context), [str(c) for c in configs], int(examples),
                           int(max_tokens or 0))
    stop = run.stop()
    if client is None:
        _run(run.run_here, "atlas", progress, stop)
    else:
        _atlas_on_cluster(run, model, client, stop, progress)
    return Atlas(out)


ATLAS_BLOCK = _native.ATLAS_BLOCK


def _atlas_on_cluster(run, model, client, stop, progress):
    done = run.documents_done
    # An open block (a run stopped within it) is finished here: its sum goes on in order.
    boundary = min(stop, -(-done // ATLAS_BLOCK) * ATLAS_BLOCK)
    if done < boundary:
        run.run_here(boundary, None)
    documents = run.documents
    options = run.options_json
    starts = range(boundary, stop, ATLAS_BLOCK)
    futures = [client.submit(_atlas_part, model.location, model.revision, model.backend,
                             documents[first:min(first + ATLAS_BLOCK, stop)], first, options,
                             pure=False)
               for first in starts]
    bar = None
    if progress is None:
        progress, bar = _progress_bar("atlas", unit="document")
    try:
        for first, future in zip(starts, futures):  # joined in document order
            run.append(future.result())
            if progress:
                progress(min(first + ATLAS_BLOCK, stop), stop)
    finally:
        for future in futures:
            future.cancel()
        if bar is not None:
            bar.close()


_worker_models = {}


def _atlas_part(location, revision, backend, documents, first, options):
    """On a Dask worker: one block of the corpus, as bytes for ``AtlasRun.append``. The model is
    opened once per worker process."""
    key = (location, revision, backend)
    if key not in _worker_models:
        _worker_models[key] = _open_native(location, revision, backend)
    return _native.atlas_part(_worker_models[key], documents, first, options)


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
