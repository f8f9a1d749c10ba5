"""PDF documents become text, page by page, read by pypdf (pure Python). The pages are joined
with form feeds, as pdftotext writes them, so each passage records its page (1 for the first
page, whatever the printed page labels say).

Only a PDF's text layer is read: a scanned page with no text gives no passages (there is no OCR
here), and a PDF that needs a password is refused.
"""

from __future__ import annotations

import io
import logging

import pypdf
from pypdf.errors import PyPdfError

from provgraph.errors import InputError


def pdf_text(raw: bytes, *, file: str) -> str:
    """The text of every page, in order, pages separated by ``\\f``."""
    # pypdf logs every repaired flaw of a file as a warning; the user sees errors, not repairs
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = pypdf.PdfReader(io.BytesIO(raw))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError("the PDF is encrypted with a password; decrypt it first", file=file)
        pages = []
        for number, page in enumerate(reader.pages, start=1):
            try:
                pages.append(page.extract_text() or "")
            except (PyPdfError, ValueError, KeyError, TypeError) as exc:
                raise InputError(f"cannot read the text of page {number}: {exc}", file=file) from exc
    except InputError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise InputError(f"not a readable PDF: {exc}", file=file) from exc
    return "\f".join(page.replace("\f", "\n") for page in pages)


__all__ = ["pdf_text"]
