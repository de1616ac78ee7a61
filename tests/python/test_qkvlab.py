"""The qkvlab Python module against qkvlab-cli on the shared reference models: the same
numbers bit for bit (the --npz arrays exactly, the --json matrices as the CLI rounds them),
arrays that are views, progress, cancelling, and bad input as qkvlab.Error.

QKVLAB_CLI names the command line tool; QKV_SHARED_DIR the shared assets (default ../shared
beside the repository): without them the tests that need them skip with a message.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys

import numpy as np
import pytest

import qkvlab

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("QKV_SHARED_DIR") or REPO.parent / "shared")
MODELS = SHARED / "models"
CLI = os.environ.get("QKVLAB_CLI", str(REPO / "build" / "app" / "qkvlab-cli"))
CONFIGS = ["learned", "shared-qk", "tied-kv", "single-w", "sym-scores", "skew-scores"]
IDS = [3, 1, 4, 1, 5, 9, 2, 6]


def shared_models():
    if not MODELS.is_dir():
        return []
    return sorted(p.name for p in MODELS.iterdir() if (p / "config.json").is_file())


needs_shared = pytest.mark.skipif(
    not MODELS.is_dir(), reason="no shared reference models at %s (set QKV_SHARED_DIR)" % MODELS)


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


@needs_shared
@pytest.mark.parametrize("name", shared_models())
def test_attention_equals_the_command_lines_arrays_bit_for_bit(name, tmp_path):
    folder = MODELS / name
    try:
        model = qkvlab.open(folder)
    except qkvlab.Error:  # a folder the command line does not open either
        assert cli("info", "--model", str(folder)).returncode != 0
        return
    encoder_decoder = model.info.get("encoder_decoder", False)
    for config in CONFIGS:
        npz = tmp_path / (config + ".npz")
        run = cli("attention", "--model", str(folder), "--ids", ",".join(map(str, IDS)),
                  "--config", config, "--backend", "cpu", "--npz", str(npz))
        if run.returncode != 0:  # a configuration the model refuses: the module refuses it too
            with pytest.raises(qkvlab.Error):
                model.attention(IDS, config=config)
            continue
        result = model.attention(IDS, config=config)
        archive = np.load(npz)
        blocks = [("encoder_" if encoder_decoder else "", result.attention, result.scores)]
        if encoder_decoder:
            blocks += [("decoder_", result.decoder_attention, result.decoder_scores),
                       ("cross_", result.cross_attention, result.cross_scores)]
        for prefix, attention, scores in blocks:
            for l in range(attention.shape[0]):
                for h in range(attention.shape[1]):
                    stem = "%slayer%d_head%d_" % (prefix, l, h)
                    # A hybrid's layer with fewer heads, or a linear layer's scores: NaN here,
                    # absent from the archive.
                    for array, name in ((attention, "attention"), (scores, "scores")):
                        if stem + name in archive:
                            assert np.array_equal(array[l, h], archive[stem + name]), stem
                        else:
                            assert array is None or np.isnan(array[l, h]).all(), stem + name


@needs_shared
@pytest.mark.parametrize("name", ["gpt2-random-tiny", "llama-random-gqa", "qwen3-random-tiny"])
def test_attention_equals_the_command_lines_json(name):
    folder = MODELS / name
    run = cli("attention", "--model", str(folder), "--ids", ",".join(map(str, IDS)),
              "--config", "shared-qk", "--backend", "cpu", "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    result = qkvlab.open(folder).attention(IDS, config="shared-qk")
    # The JSON writes each number with 7 significant digits (%.7g): the same rounding of the
    # module's float32 values gives exactly the document's numbers.
    rounded = np.vectorize(lambda x: float("%.7g" % x))
    for l, layer in enumerate(doc["layers"]):
        for h, head in enumerate(layer["heads"]):
            assert np.array_equal(rounded(result.attention[l, h]), np.array(head["attention"]))
            assert np.array_equal(rounded(result.scores[l, h]), np.array(head["scores"]))
    assert doc["ids"] == result.ids


@needs_shared
def test_arrays_are_views_of_the_result():
    result = qkvlab.open(MODELS / "gpt2-random-tiny").attention(IDS, vectors=True)
    for array in (result.attention, result.scores, result.q, result.k, result.v):
        assert array.dtype == np.float32
        assert array.base is result  # no copy: the result object owns the memory
        assert not array.flags.owndata
    assert result.attention.shape[2:] == (len(IDS), len(IDS))
    assert np.shares_memory(result.attention, result.attention[1:, 2:])
    # The attention rows of a softmax sum to one.
    assert np.allclose(result.attention.sum(axis=-1), 1.0, atol=1e-5)


@needs_shared
def test_sink_shares_are_what_the_rows_miss():
    result = qkvlab.open(MODELS / "gpt_oss-random-tiny").attention(IDS)
    assert np.allclose(result.sink_shares, 1.0 - result.attention.sum(axis=-1), atol=1e-6)
    assert qkvlab.open(MODELS / "gpt2-random-tiny").attention(IDS).sink_shares is None


def stored_dtype(safetensors, name):
    """The dtype a safetensors file's header gives tensor `name`."""
    with open(safetensors, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        return json.loads(f.read(size))[name]["dtype"]


@needs_shared
def test_info_is_the_command_lines():
    folder = MODELS / "gpt2-random-tiny"
    run = cli("info", "--model", str(folder), "--json")
    assert run.returncode == 0, run.stderr
    model = qkvlab.open(folder)
    assert model.info == json.loads(run.stdout)
    assert model.info["dtype"] == stored_dtype(folder / "model.safetensors", "wte.weight")
    assert (model.info["layers"], model.info["heads"]) == (2, 4)


@needs_shared
def test_layers_heads_and_text():
    model = qkvlab.open(MODELS / "gpt2-random-tiny")
    every = model.attention(IDS)
    one = model.attention(IDS, layers=1, heads=[0, 2])
    assert one.layers == [1] and one.heads == [0, 2]
    assert np.array_equal(one.attention[0, 1], every.attention[1, 2])
    tokens = model.tokenize("Hello world")
    run = cli("tokenize", "--model", str(MODELS / "gpt2-random-tiny"), "--text", "Hello world",
              "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert (doc["ids"], doc["tokens"]) == (tokens["ids"], tokens["pieces"])
    assert model.attention("Hello world").ids == tokens["ids"]


@needs_shared
@pytest.mark.parametrize("name", shared_models())
def test_analyze_equals_the_command_line_every_time(name):
    """Per head and per layer, twice in a row: the same numbers as the command line's."""
    folder = MODELS / name
    try:
        model = qkvlab.open(folder)
    except qkvlab.Error:  # a pending family: the command line refuses it too
        assert cli("info", "--model", str(folder)).returncode != 0
        return
    if model.info.get("encoder_decoder", False):
        return  # the command line's JSON has a block per kind; the module gives the encoder's
    run = cli("analyze", "--model", str(folder), "--json", "--no-copying-score", "--backend", "cpu")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    expected = [dict({"layer": l, "head": h}, **head)
                for l, layer in enumerate(doc["layers"]) for h, head in enumerate(layer["heads"])]
    expected_layers = [dict({"layer": l}, **{k: v for k, v in layer.items() if k != "heads"})
                       for l, layer in enumerate(doc["layers"])]
    for _ in range(2):
        assert model.analyze(copying_score=False) == expected
        assert model.analyze_layers() == expected_layers


@needs_shared
def test_survey_equals_the_command_line():
    folders = [str(MODELS / "gpt2-random-tiny"), str(MODELS / "bert-random-tiny")]
    run = cli("survey", *folders, "--json")
    assert run.returncode == 0, run.stderr
    assert qkvlab.survey(folders) == json.loads(run.stdout)["models"]
    with pytest.raises(qkvlab.Error, match="missing"):
        qkvlab.survey([str(MODELS / "missing")])


@needs_shared
def test_progress_reports_every_layer_and_ctrl_c_cancels():
    model = qkvlab.open(MODELS / "gpt2-random-tiny")
    layers = model.info["layers"]
    seen = []
    model.attention(IDS, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (layers, layers)
    seen.clear()
    model.analyze(copying_score=False, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(i, layers) for i in range(1, layers + 1)]
    # With the copying score, W_U W_E's blocks are reported first, to their own callback.
    blocks = []
    seen.clear()
    model.analyze(progress=lambda done, total: seen.append((done, total)),
                  round_trip_progress=lambda done, total: blocks.append((done, total)))
    assert blocks and blocks[-1][0] == blocks[-1][1] > 0, blocks
    assert [done for done, _ in blocks] == list(range(1, len(blocks) + 1))
    assert seen == [(i, layers) for i in range(1, layers + 1)]

    def interrupt(done, total):  # Ctrl-C at the first report
        os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        model.attention(IDS, progress=interrupt)
    with pytest.raises(KeyboardInterrupt):
        model.analyze(progress=interrupt)
    layer_reports = []
    with pytest.raises(KeyboardInterrupt):  # in W_U W_E, before any layer
        model.analyze(progress=lambda done, total: layer_reports.append(done),
                      round_trip_progress=interrupt)
    assert layer_reports == []

    def fail(done, total):
        raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        model.attention(IDS, progress=fail)
    model.attention(IDS)  # still usable after a cancel


@needs_shared
def test_figures_are_the_apps_with_their_provenance(tmp_path):
    result = qkvlab.open(MODELS / "gpt2-random-tiny").attention(IDS, config="tied-kv")
    for suffix in ("png", "svg", "pdf"):
        path = tmp_path / ("head." + suffix)
        result.figure(1, 2, str(path))
        run = cli("info", "--figure", str(path), "--json")
        assert run.returncode == 0, run.stderr
        record = json.loads(run.stdout)
        assert (record["layer"], record["head"]) == (1, 2), record
        assert record["config"] == "tied-kv" and record["ids"] == IDS, record
    png = result._repr_png_()  # what Jupyter shows inline
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(qkvlab.Error):
        result.figure(0, 0, str(tmp_path / "head.bmp"))


def test_bad_input_raises_qkvlab_error(tmp_path):
    with pytest.raises(qkvlab.Error, match="missing"):
        qkvlab.open(tmp_path / "missing")
    with pytest.raises(qkvlab.Error):
        qkvlab.open(tmp_path)  # a folder without config.json


@needs_shared
def test_bad_input_on_a_model_raises_qkvlab_error():
    model = qkvlab.open(MODELS / "gpt2-random-tiny")
    with pytest.raises(qkvlab.Error, match="unknown"):
        model.attention(IDS, config="no-such-config")
    with pytest.raises(qkvlab.Error, match="vocabulary|out of range|id"):
        model.attention([model.info["vocab_size"]])
    with pytest.raises(qkvlab.Error, match="at most"):
        model.attention([1] * (model.info["context_length"] + 1))
    with pytest.raises(qkvlab.Error, match="empty"):
        model.attention("   ")
    reports = []
    with pytest.raises(qkvlab.Error, match="no layer"):  # before the forward runs any layer
        model.attention(IDS, layers=[99], progress=lambda done, total: reports.append(done))
    assert reports == []


@needs_shared
def test_values_keep_their_own_width():
    """DeepSeek's values are v_head_dim wide, its queries and keys qk_nope + qk_rope."""
    model = qkvlab.open(MODELS / "deepseek_v3-random-tiny")
    result = model.attention(IDS, vectors=True)
    value_dims = model.info["latent_attention"]["value_dims"]
    assert result.v.shape[-1] == value_dims
    assert result.q.shape[-1] == model.info["d_k"] != value_dims
    assert result.k.shape == result.q.shape[:2] + (len(IDS), model.info["d_k"])


@needs_shared
def test_the_example_runs():
    """examples/compare_with_transformers.py: QKV Lab's side always, transformers' where
    installed (otherwise it says it skipped the comparison)."""
    run = subprocess.run(
        [sys.executable, str(REPO / "examples" / "compare_with_transformers.py"),
         str(MODELS / "gpt2-random-tiny")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "largest total-variation change under shared-qk" in run.stdout
    assert ("skipped the comparison with transformers" in run.stdout or
            "largest difference from transformers" in run.stdout)


@needs_shared
def test_a_tqdm_bar_without_a_callback_once_the_call_lasts(capfd, monkeypatch):
    pytest.importorskip("tqdm", reason="tqdm is not installed: no bar to show")
    model = qkvlab.open(MODELS / "gpt2-random-tiny")
    monkeypatch.setattr(qkvlab, "_BAR_DELAY_SECONDS", 0)  # every call lasts long enough
    model.attention(IDS)
    bar = capfd.readouterr().err
    assert "forward:" in bar, bar
    monkeypatch.setattr(qkvlab, "_BAR_DELAY_SECONDS", 3600)  # no call lasts that long
    model.attention(IDS)
    model.analyze()
    assert capfd.readouterr().err == ""


@needs_shared
def test_progress_false_shows_nothing(capfd):
    model = qkvlab.open(MODELS / "gpt2-random-tiny")
    assert model.attention(IDS, progress=False).ids == IDS
    assert model.analyze(progress=False)
    assert capfd.readouterr().err == ""


@needs_shared
def test_a_result_says_what_it_holds():
    model = qkvlab.open(MODELS / "gpt2-random-tiny")
    text = repr(model.attention(IDS, config="shared-qk"))
    assert text.startswith("<qkvlab.AttentionResult gpt2-random-tiny, config shared-qk, 8 tokens")
    assert "attention (2, 4, 8, 8)" in text, text


@needs_shared
def test_errors_speak_to_python_users():
    model = qkvlab.open(MODELS / "gemma2-random-tiny")  # no tokenizer files
    with pytest.raises(qkvlab.Error) as error:
        model.attention("a sentence")
    assert "--ids" not in str(error.value) and "give token ids" in str(error.value)
