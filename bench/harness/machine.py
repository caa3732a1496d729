"""What a figure was measured on: the machine, its load, and the versions of everything timed."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

DISTRIBUTIONS = (
    "pydantic",
    "pydantic-core",
    "pydantic-ai-slim",
    "langchain-core",
    "langchain-openai",
    "langchain-anthropic",
    "litellm",
)


def cpu_model() -> str:
    """The CPU's model name (Linux `/proc/cpuinfo`), else what `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def source_revision() -> str:
    """The commit of the checkout being measured, `+dirty` when it has uncommitted changes."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}+dirty" if dirty else commit


def header() -> str:
    """Two lines: the machine with its load now, and the versions."""
    cores = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    machine = f"machine: {cpu_model()}, {cores} cores ({usable} usable), load average {load_average()}"
    versions = " | ".join(f"{name} {_version(name)}" for name in DISTRIBUTIONS)
    return f"{machine}\nversions: Python {platform.python_version()} | tfrobot {source_revision()} | {versions}"
