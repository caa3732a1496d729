"""`make run` installs only the server extra; test, lint and bench install dev + bench (issue 16).

The dev venv of bench/'s peer SDKs is several times the size of what serving needs, so `run` has its own
install; dev includes server, so a dev install also stands for it and either order works from a fresh clone.
Checked with `make -n` (prints the recipes, runs nothing) against an empty venv directory.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")


def _installs(target: str, venv: Path) -> list[str]:
    """The pip installs `make <target>` would run with `venv` as the venv."""
    out = subprocess.run(
        ["make", "-n", "-C", str(ROOT), f"VENV={venv}", target], capture_output=True, text=True, check=True
    ).stdout
    return [line for line in out.splitlines() if "pip install" in line and "--upgrade pip" not in line]


def test_run_installs_the_server_extra_only(tmp_path: Path) -> None:
    assert _installs("run", tmp_path / "venv") == [f"{tmp_path / 'venv'}/bin/python -m pip install -q -e '.[server]'"]


@pytest.mark.parametrize("target", ["pytest", "lint", "typecheck", "bench"])
def test_the_other_targets_install_dev_and_bench(tmp_path: Path, target: str) -> None:
    assert _installs(target, tmp_path / "venv") == [
        f"{tmp_path / 'venv'}/bin/python -m pip install -q -e '.[dev,bench]'"
    ]


def test_a_dev_install_stands_for_the_server_one(tmp_path: Path) -> None:
    """After `make venv` (test first), `make run` installs nothing more; after `make run`, test still does."""
    venv = tmp_path / "venv"
    venv.mkdir()
    recipe = subprocess.run(
        ["make", "-n", "-C", str(ROOT), f"VENV={venv}", "venv"], capture_output=True, text=True, check=True
    ).stdout
    touched = next(line for line in recipe.splitlines() if line.startswith("rm -f") and "touch" in line)
    subprocess.run(touched, shell=True, check=True, cwd=ROOT)
    assert _installs("run", venv) == []
    assert _installs("pytest", venv) == []
    for stamp in venv.glob(".installed-dev-*"):
        stamp.unlink()
    assert _installs("run", venv) == []
    assert len(_installs("pytest", venv)) == 1


def test_no_virtualenv_is_tracked() -> None:
    """`.venv` is ignored as a directory *and* as a symlink (a worktree's link to a shared venv): git overwrites an
    ignored path without a word when a commit that tracks it is checked out, and a merge that tracked the
    symlink `.venv -> <main>/.venv` replaced the main checkout's venv with a link to itself (review R19)."""
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--", ".venv"], capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", ".venv"], check=False)
    assert ignored.returncode == 0, "`.venv` (directory or symlink) must be ignored by .gitignore"
