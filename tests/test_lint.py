"""The code stays ruff clean (lint and format) and type-checks, checked where CI checks everything else."""

import shutil
import subprocess

import pytest

from helpers import ROOT


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff(command):
    ruff = shutil.which("ruff")
    assert ruff is not None, "ruff is a dev dependency: pip install -e '.[dev]'"
    done = subprocess.run([ruff, *command], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy():
    mypy = shutil.which("mypy")
    assert mypy is not None, "mypy is a dev dependency: pip install -e '.[dev]'"
    done = subprocess.run([mypy, "src"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
