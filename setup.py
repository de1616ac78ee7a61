"""Builds qkvlab._native with the project's CMake (scripts/setup.sh installs what it needs) and
packages it with python/qkvlab. pyproject.toml holds the metadata.

QKVLAB_FIGURES=0 leaves the app's figure builder (Qt) out: a shorter build, and
AttentionResult.figure then says it is missing. QKVLAB_CMAKE_BUILD_DIR=DIR takes the module
from a build tree already configured (it builds only that target there).
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tree = os.environ.get("QKVLAB_CMAKE_BUILD_DIR")
        if not tree:
            tree = os.path.join(os.path.abspath(self.build_temp), "cmake")
            figures = os.environ.get("QKVLAB_FIGURES", "1") != "0"
            subprocess.run(["cmake", "-S", ROOT, "-B", tree, "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release", "-DQKV_BUILD_TESTS=OFF",
                            "-DQKV_BUILD_BENCH=OFF", "-DQKV_BUILD_PYTHON=ON",
                            "-DQKV_BUILD_GUI=" + ("ON" if figures else "OFF"),
                            "-DPython_EXECUTABLE=" + sys.executable], check=True)
        subprocess.run(["cmake", "--build", tree, "--target", "qkvlab_native"], check=True)
        built = glob.glob(os.path.join(tree, "python", "qkvlab", "_native*.so"))
        if len(built) != 1:
            raise RuntimeError("the CMake build left no qkvlab/_native module in " + tree)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


# Beside the CMake trees (/build*), not in them.
os.makedirs(os.path.join(ROOT, "build-pip"), exist_ok=True)
setup(
    packages=["qkvlab"],
    package_dir={"qkvlab": "python/qkvlab"},
    ext_modules=[Extension("qkvlab._native", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
)
