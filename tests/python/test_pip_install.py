"""`pip install --no-build-isolation .` from the source tree into a virtual environment (with
Debian's build tools, no download) installs a qkvlab that imports from the environment and
computes. The build itself is the CMake tree of the tests (QKVLAB_CMAKE_BUILD_DIR, which setup.py
builds only the module in); a fresh `pip install .` configures its own tree the same way.
"""

import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = REPO / "resources" / "models" / "qkv-stories-learned"


def test_pip_installs_the_module_into_a_virtual_environment(tmp_path):
    tree = os.environ.get("QKVLAB_CMAKE_BUILD_DIR")
    if not tree:
        pytest.skip("QKVLAB_CMAKE_BUILD_DIR names no build tree to take the module from")
    venv = tmp_path / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own qkvlab
    python = str(venv / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation",
                              "--no-deps", "--no-index", str(REPO)],
                             capture_output=True, text=True, env=env)
    assert install.returncode == 0, install.stdout + install.stderr
    script = ("import qkvlab\n"
              "print(qkvlab.__file__)\n"
              "a = qkvlab.atlas(%r, out=%r, max_tokens=100, progress=False)\n"
              "print(a.provenance['documents'])\n" % (str(SHIPPED), str(tmp_path / "a.atlas")))
    run = subprocess.run([python, "-c", script], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    where, documents = run.stdout.split()
    assert where.startswith(str(venv))
    assert int(documents) >= 1
