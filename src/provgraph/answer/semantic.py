"""How near in meaning a passage is to a question, beside the words they share.

BM25 counts shared words: "What race track in the midwest hosts a 500 mile race every May?"
shares "race" with a transmission maker's "Allison's new track held the first Indianapolis 500
mile race" as much as with "The Indianapolis Motor Speedway is an automobile racing circuit".
WordLlama's static token embeddings (MIT; its 256-dimension "l2_supercat" model, 16 MB, and its
tokenizer ship inside the wheel) give each text a vector by averaging its tokens' vectors, on
the CPU in well under a millisecond per passage; the cosine of two such vectors says how near
they are. The model is loaded once, from the wheel, with downloads disabled: the network is
never asked.

>>> near, far = similarities("Who built the lighthouse?", ["The lighthouse was built by Robert Stevenson.",
...                                                      "The orchestra played a waltz."])
>>> near > far
True
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_lock = threading.Lock()
_loaded: list[Any] = []


def _model() -> Any:
    with _lock:
        if not _loaded:
            import wordllama

            # wordllama 0.4 looks for its tokenizer beside its code under "tokenizer/", while its
            # wheel holds it under "tokenizers/", which is where it looks in a cache directory:
            # the package's own directory serves as one
            _loaded.append(wordllama.WordLlama.load(disable_download=True, cache_dir=Path(wordllama.__file__).parent))
        return _loaded[0]


def similarities(question: str, texts: Sequence[str]) -> list[float]:
    """The cosine similarity, from -1 to 1, of ``question`` with each of ``texts``."""
    if not texts:
        return []
    model = _model()
    asked = model.embed([question], norm=True)[0]
    return [float(v) for v in model.embed(list(texts), norm=True) @ asked]


__all__ = ["similarities"]
