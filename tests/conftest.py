from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import SHARED_DATA
from provgraph import ProvGraph


@pytest.fixture
def pg() -> Iterator[ProvGraph]:
    graph = ProvGraph.memory()
    yield graph
    graph.close()


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("the shared data sets (../shared/data beside the project) are not present")
    return SHARED_DATA
