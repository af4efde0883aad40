"""tox_install/shared_installs.py: tox's environments keep one copy of torch (and of each other package) on disk."""

import os

from tox_install import shared_installs


def _environment(root, files: dict) -> tuple[str, str]:
    """A fake environment (prefix, site-packages) holding a 'torch' of ``files``."""
    prefix = root
    site = os.path.join(root, "lib", "site-packages")
    os.makedirs(os.path.join(site, "torch-2.13.0+cpu.dist-info"))
    for rel, data in files.items():
        path = os.path.join(site, "torch", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return prefix, site


FILES = {"__init__.py": b"import torch._C\n", "lib/libtorch_cpu.so": b"\x7fELF" + b"x" * 4096, "nn/modules/linear.py": b"class Linear: ...\n"}


def test_the_second_environment_links_to_the_first(tmp_path):
    work = str(tmp_path / "tox")
    a = _environment(str(tmp_path / "a"), FILES)
    b = _environment(str(tmp_path / "b"), {**FILES, "nn/modules/linear.py": b"class Linear: patched\n"})
    assert shared_installs.share(work, site=a[1], prefix=a[0]) == 0  # the first fills the store
    assert shared_installs.share(work, site=b[1], prefix=b[0]) == 2  # the same bytes: linked
    inode = lambda env, rel: os.stat(os.path.join(env[1], "torch", rel)).st_ino  # noqa: E731 - a one-line helper
    assert inode(a, "lib/libtorch_cpu.so") == inode(b, "lib/libtorch_cpu.so")
    assert inode(a, "__init__.py") == inode(b, "__init__.py")
    assert inode(a, "nn/modules/linear.py") != inode(b, "nn/modules/linear.py")  # different bytes stay apart
    with open(os.path.join(b[1], "torch", "nn/modules/linear.py"), "rb") as f:
        assert f.read() == b"class Linear: patched\n"
    assert shared_installs.share(work, site=b[1], prefix=b[0]) == 0  # marked: not walked again


def test_an_upgrade_in_one_environment_leaves_the_other_alone(tmp_path):
    work = str(tmp_path / "tox")
    a = _environment(str(tmp_path / "a"), FILES)
    b = _environment(str(tmp_path / "b"), FILES)
    shared_installs.share(work, site=a[1], prefix=a[0])
    shared_installs.share(work, site=b[1], prefix=b[0])
    path = os.path.join(b[1], "torch", "__init__.py")
    os.unlink(path)  # as pip replaces a file: remove, then write anew
    with open(path, "wb") as f:
        f.write(b"new\n")
    with open(os.path.join(a[1], "torch", "__init__.py"), "rb") as f:
        assert f.read() == FILES["__init__.py"]


def test_an_environment_without_packages_is_left_alone(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    assert shared_installs.share(str(tmp_path / "tox"), site=str(site), prefix=str(tmp_path)) == 0
    assert not (tmp_path / "tox").exists()
