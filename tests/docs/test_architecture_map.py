"""docs/architecture.md names only paths that exist, names each once, and names every package under src/.

The map's tables give a path in their first column (from the repository's root) and may name files of that
path in their second (`base.py`, `configs/demo.yaml`); the seeds' table names modules by their dotted name."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
ROWS = re.findall(r"^\| `([^`]+)` \| (.*) \|$", MAP, flags=re.M)
PATH_ROWS = [(path, job) for path, job in ROWS if "/" in path]
FILE_NAME = re.compile(r"`((?:[\w.-]+/)*[\w.-]+\.(?:py|lark|yaml|md|ts|tsx)|[\w-]+/)`")
SEEDS = MAP.split("## Where the seeds' names live", 1)[1]
MODULES = re.findall(r"\| `((?:tfrobot|tfrobotserver)(?:\.\w+)*)`", SEEDS)


def module_path(dotted: str) -> Path:
    base = ROOT / "src" / Path(*dotted.split("."))
    return base if base.is_dir() else base.with_suffix(".py")


def test_the_map_has_its_tables() -> None:
    assert len(PATH_ROWS) > 50
    assert len(MODULES) > 15


def test_every_path_it_names_exists() -> None:
    missing = [path for path, _ in PATH_ROWS if not (ROOT / path).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_file_a_row_names_is_in_that_row_s_path() -> None:
    missing = [
        f"{path}{name}"
        for path, job in PATH_ROWS
        for name in FILE_NAME.findall(job)
        if not (ROOT / path / name).exists()
    ]
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


def test_every_module_of_the_seeds_table_exists() -> None:
    missing = [dotted for dotted in MODULES if not module_path(dotted).exists()]
    assert not missing, f"docs/architecture.md's seed table names modules that do not exist: {missing}"


def test_no_path_is_listed_twice() -> None:
    twice = [path for path, count in Counter(path for path, _ in PATH_ROWS).items() if count > 1]
    assert not twice, f"docs/architecture.md lists these paths twice: {twice}"


def test_every_package_is_named() -> None:
    named = {path.rstrip("/") for path, _ in PATH_ROWS}
    packages = {init.parent.relative_to(ROOT).as_posix() for init in (ROOT / "src").rglob("__init__.py")}
    unnamed = sorted(packages - named)
    assert not unnamed, f"packages missing from docs/architecture.md (add a row each): {unnamed}"
