# `cpack -G DEB` in the build folder (or `cmake --build build --target package`): a Debian
# package of what packaging/CMakeLists.txt installs, under /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME qkvlab)
set(CPACK_PACKAGE_VENDOR "QKV Lab")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop lab for the attention heads of transformer models")
set(CPACK_PACKAGE_CONTACT "QKV Lab maintainers <maintainers@qkvlab.invalid>"
    CACHE STRING "Maintainer of the Debian package (Name <email>)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # qkvlab_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The summary above is the first line; this is the text below it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "QKV Lab loads a saved Hugging Face model (GPT-2, Pythia, Llama, Qwen2, Gemma-2, Phi-3, OPT,
BERT, RoBERTa, DistilBERT, Marian, BART, T5), runs a sentence through it and shows every
attention head under the learned W_Q, W_K, W_V and under tied configurations (shared-QK, tied
K = V, a single W), with numbers that say how asymmetric each head is.
.
The package holds the desktop app qkvlab, the command-line tool qkvlab-cli, the Python module
qkvlab and four small example models trained by the project.")
# Depends: the shared libraries the programs link against, found by dpkg-shlibdeps (dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Python module is loaded by Debian's python3 and hands numpy arrays out: neither is linked.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-numpy")
# The Vulkan loader is opened at run time, so dpkg-shlibdeps cannot see it; without it the
# programs compute on the CPU.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libvulkan1")
# Release builds use -march=native unless QKV_NATIVE_ARCH is OFF: only then does the package run
# on other CPUs than the builder's.
include(CPack)
