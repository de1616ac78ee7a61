"""qkvlab.atlas: the same file as qkvlab-cli atlas; on a Dask LocalCluster of two worker processes
the same file as one process, to the last bit (a fresh run and one resumed within a block); each
score as numpy computes it from the attention arrays of a shared model; bad input as
qkvlab.Error.

QKVLAB_CLI names the command line tool; QKV_SHARED_DIR the shared assets (default ../shared).
"""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import qkvlab

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("QKV_SHARED_DIR") or REPO.parent / "shared")
CLI = os.environ.get("QKVLAB_CLI", str(REPO / "build" / "app" / "qkvlab-cli"))
SHIPPED = REPO / "resources" / "models" / "qkv-stories-learned"

SENTENCES = ["The cat sat on the mat and the dog sat on the rug.",
             "Mia gave Tom a red ball because Tom was sad.",
             "A bird sang in the tall tree near the old house."]


def write_corpus(path, count):
    """`count` paragraphs; every third repeats an earlier one's words (induction cells)."""
    paragraphs = []
    for i in range(count):
        text = SENTENCES[i % 3]
        if i % 3 == 2:
            text += " " + SENTENCES[(i // 3) % 3]
        paragraphs.append(text)
    path.write_text("\n\n".join(paragraphs) + "\n")
    return path


def contents(path):
    """An atlas's tables and every score's examples, but its file name."""
    doc = json.loads(qkvlab._native.atlas_json(str(path)))
    doc.pop("atlas")
    scores = [k for k in doc["heads"][0] if k not in ("layer", "head", "kind")
              and not k.startswith("largest_")]
    doc["examples"] = {s: json.loads(qkvlab._native.atlas_examples_json(str(path), s))
                       for s in scores}
    return doc


def test_the_same_file_as_the_command_line(tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt", 40)
    cli_out, py_out = tmp_path / "cli.atlas", tmp_path / "py.atlas"
    run = subprocess.run([CLI, "atlas", "--model", str(SHIPPED), "--corpus", str(corpus),
                          "--out", str(cli_out), "--config", "shared-qk", "--examples", "3",
                          "--backend", "cpu"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    a = qkvlab.atlas(str(SHIPPED), corpus, out=py_out, configs=["shared-qk"], examples=3,
                     progress=False)
    assert contents(py_out) == contents(cli_out)
    # The tables as numpy records: a column per score, NaN-free here.
    assert len(a.heads) == 16 and a.heads.dtype.names[:3] == ("layer", "head", "kind")
    assert np.all(a.heads["change_shared-qk"] > 0)
    top = a.examples("induction")
    assert len(top) == 16 * 3 and np.all(top["rank"][:3] == [1, 2, 3])
    assert "⟨" in top["context"][0]
    assert a.provenance["documents"] == 40


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_two_dask_workers_give_the_one_process_atlas(tmp_path, dask_client):
    corpus = write_corpus(tmp_path / "corpus.txt", 2 * qkvlab.ATLAS_BLOCK + 9)
    options = dict(configs=["shared-qk"], examples=2, progress=False)
    qkvlab.atlas(SHIPPED, corpus, out=tmp_path / "one.atlas", **options)
    qkvlab.atlas(SHIPPED, corpus, out=tmp_path / "dask.atlas", client=dask_client, **options)
    assert contents(tmp_path / "dask.atlas") == contents(tmp_path / "one.atlas")
    # Stopped within the second block by one process, finished by the cluster.
    resumed = tmp_path / "resumed.atlas"
    stopped = qkvlab.atlas(SHIPPED, corpus, out=resumed, max_tokens=900, **options)
    assert qkvlab.ATLAS_BLOCK < stopped.provenance["documents"] < 2 * qkvlab.ATLAS_BLOCK
    qkvlab.atlas(SHIPPED, corpus, out=resumed, client=dask_client, **options)
    assert contents(resumed) == contents(tmp_path / "one.atlas")


def numpy_scores(attention, scores, ids):
    """docs/definitions.md's head detectors of one head's map, in numpy."""
    a = np.abs(attention.astype(np.float64))
    n = len(ids)
    i, j = np.indices((n, n))
    ids = np.asarray(ids)
    shifted = np.concatenate([[-1], ids[:-1]])  # the token before each key
    patterns = {
        "previous_token": j == i - 1,
        "duplicate_token": (j < i) & (ids[j] == ids[i]),
        "induction": (j >= 1) & (j <= i) & (shifted[j] == ids[i]),
        "first_token": (j == 0),
        "self": (j == i),
    }
    out = {name: a[p].sum() / a.sum() for name, p in patterns.items()}
    p = a / a.sum(axis=1, keepdims=True)
    logs = np.log(np.where(p > 0, p, 1))
    out["entropy"] = np.mean(-(p * logs).sum(axis=1))
    out["distance"] = np.mean((p * np.abs(i - j)).sum(axis=1))
    s = scores.astype(np.float64)
    out["score_symmetry"] = (s * s.T).sum() / (s * s).sum()

    def excess(norms):  # the norms' mass above mean + 2 standard deviations
        threshold = norms.mean() + 2 * norms.std(ddof=1)
        return np.where(norms > threshold, norms - threshold, 0).sum()

    r, c = excess(np.linalg.norm(s, axis=1)), excess(np.linalg.norm(s, axis=0))
    out["directionality"] = (c - r) / (c + r) if r + c > 0 else 0.0
    return out


@pytest.mark.skipif(not (SHARED / "models" / "gpt2-random-tiny").is_dir(),
                    reason="no shared reference models at %s" % SHARED)
def test_each_score_as_numpy_computes_it(tmp_path):
    folder = SHARED / "models" / "gpt2-random-tiny"
    text = "one two three one two three four one two"
    (tmp_path / "one.txt").write_text(text + "\n")
    model = qkvlab.open(folder)
    a = qkvlab.atlas(model, tmp_path / "one.txt", out=tmp_path / "one.atlas",
                     configs=["shared-qk"], progress=False)
    ids = model.tokenize(text)["ids"]
    learned = model.attention(ids)
    shared = model.attention(ids, config="shared-qk")
    for record in a.heads:
        layer, head = record["layer"], record["head"]
        expected = numpy_scores(learned.attention[layer, head], learned.scores[layer, head], ids)
        p = learned.attention[layer, head].astype(np.float64)
        q = shared.attention[layer, head].astype(np.float64)
        p = p / p.sum(axis=1, keepdims=True)
        q = q / q.sum(axis=1, keepdims=True)
        expected["change_shared-qk"] = np.mean(0.5 * np.abs(p - q).sum(axis=1))
        for score, value in expected.items():
            # One sequence: the atlas's mean is its value. The same float32 maps summed in
            # float64 in another order: within 1e-12.
            assert record[score] == pytest.approx(value, abs=1e-12), (layer, head, score)


def test_bad_input_is_an_error(tmp_path):
    with pytest.raises(qkvlab.Error, match="out: the atlas file"):
        qkvlab.atlas(SHIPPED)
    with pytest.raises(qkvlab.Error, match="missing.txt"):
        qkvlab.atlas(SHIPPED, tmp_path / "missing.txt", out=tmp_path / "a.atlas")
    with pytest.raises(qkvlab.Error, match="compares configurations with learned"):
        qkvlab.atlas(SHIPPED, out=tmp_path / "b.atlas", configs=["learned"])
    assert not (tmp_path / "b.atlas").exists()
    with pytest.raises(qkvlab.Error, match="shared-qk is named twice"):
        qkvlab.atlas(SHIPPED, out=tmp_path / "d.atlas", configs=["shared-qk", "q=Q,k=Q,v=V"])
    with pytest.raises(qkvlab.Error, match="no score nope"):
        qkvlab.atlas(SHIPPED, out=tmp_path / "c.atlas", max_tokens=50,
                     progress=False).examples("nope")
    with pytest.raises(qkvlab.Error, match="not a QKV Lab atlas"):
        (tmp_path / "text").write_text("hello")
        qkvlab.read_atlas(tmp_path / "text")
