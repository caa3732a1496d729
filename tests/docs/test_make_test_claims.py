"""docs/contributing.md (and the README, architecture.md) say what `make test` checks; each claimed check is
configured where the page says, or a contributor trusts a layer contract and a coverage floor nothing runs."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONTRIBUTING = (ROOT / "docs" / "contributing.md").read_text()


def _make_test_recipes() -> str:
    """The commands `make test` would run, variables expanded (`make -n`: printed, nothing run)."""
    done = subprocess.run(
        ["make", "-n", "-B", "test"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


def test_the_import_linter_contracts_the_page_names_exist_and_make_test_runs_them() -> None:
    assert "import-linter" in CONTRIBUTING
    contracts = PYPROJECT.get("tool", {}).get("importlinter", {}).get("contracts", [])
    assert contracts, "contributing.md: 'The import-linter contracts in `pyproject.toml`' — pyproject has none"
    assert "lint-imports" in _make_test_recipes()


def test_the_coverage_floor_the_page_names_exists_and_make_test_measures_it() -> None:
    assert "fail_under" in CONTRIBUTING
    report = PYPROJECT.get("tool", {}).get("coverage", {}).get("report", {})
    assert "fail_under" in report, "contributing.md: '`fail_under` in `[tool.coverage.report]`' — not in pyproject"
    assert "--cov" in _make_test_recipes() + PYPROJECT["tool"]["pytest"]["ini_options"].get("addopts", "")
