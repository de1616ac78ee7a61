#!/usr/bin/env python3
"""qkvlab.atlas on a Dask LocalCluster of 1 and then 2 worker processes, each single-threaded
(one thread, OpenBLAS on one core): the throughput the second worker adds. Beside it, the
machine's own ceiling: two independent single-threaded processes, each the atlas of half the
corpus, at once against one alone (what two workers could at best reach here). Run by
qkvlab-bench --shape atlas in the same invocation; needs Debian's python3-distributed and the
qkvlab module on PYTHONPATH.

Usage: dask_atlas.py MODEL_DIR CORPUS OUT_DIR
Prints one JSON object: seconds per worker count, the ceiling, documents and tokens.
"""
import json
import os
import subprocess
import sys
import time

# Set before the workers start: they inherit it, and OpenBLAS reads it when it loads.
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import qkvlab  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402


def timed(model, corpus, out, workers):
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("qkvlab"))  # the module loaded before the clock starts
        start = time.perf_counter()
        atlas = qkvlab.atlas(model, corpus, out=out, client=client, progress=False)
        return time.perf_counter() - start, atlas.provenance


def half_corpus(corpus, out, half):
    """The corpus's first or second half of documents, as a file of its own."""
    with open(corpus) as f:
        documents = [d for d in f.read().split("\n\n") if d.strip()]
    middle = len(documents) // 2
    path = os.path.join(out, "half%d.txt" % half)
    with open(path, "w") as f:
        f.write("\n\n".join(documents[:middle] if half == 0 else documents[middle:]))
    return path


def ceiling(model, corpus, out):
    """Throughput of two independent single-threaded processes at once, against one alone."""
    def start(half):
        script = "import qkvlab; qkvlab.atlas(%r, %r, out=%r, progress=False)" % (
            model, half_corpus(corpus, out, half), os.path.join(out, "half%d.atlas" % half))
        for name in ("half%d.atlas" % half,):
            if os.path.exists(os.path.join(out, name)):
                os.remove(os.path.join(out, name))
        return subprocess.Popen([sys.executable, "-c", script])

    begin = time.perf_counter()
    start(0).wait()
    alone = time.perf_counter() - begin
    begin = time.perf_counter()
    both = [start(0), start(1)]
    for p in both:
        p.wait()
    together = time.perf_counter() - begin
    return 2 * alone / together


def main():
    model, corpus, out = sys.argv[1], sys.argv[2], sys.argv[3]
    result = {"seconds": {}, "ceiling": ceiling(model, corpus, out)}
    for workers in (1, 2):
        seconds, provenance = timed(model, corpus, os.path.join(out, "w%d.atlas" % workers),
                                    workers)
        result["seconds"][str(workers)] = seconds
        result["documents"] = provenance["documents"]
        result["tokens"] = provenance["tokens"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
