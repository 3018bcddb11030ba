"""The file name a submission's reports get: readable, and its own on any file system.

A blind label keeps its short form ("Submission #3" -> "submission-03"). A revealed name keeps its
letters (any script), digits, dots, dashes and underscores; whatever else it has becomes a dash. When
that form is not the name itself (something was dropped or replaced, it has capitals, it is too long,
it is a name Windows reserves), a short digest of the whole name is added, so two names that differ only
in what the file name drops, or only in case (one file on a Mac or a Windows share), never share a
report.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

BLIND = re.compile(r"Submission #(\d+)")
UNSAFE = re.compile(r"[^\w.-]+")  # \w: letters and digits of any script, and the underscore
MAX_BYTES = 120  # of the stem, in UTF-8: file systems allow 255 for the whole name
DIGEST_CHARS = 8
RESERVED = {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))}
FALLBACK = "submission"


def report_stem(label: str) -> str:
    """The reports' file name, without its suffix, for a blind label or a revealed name."""
    blind = BLIND.fullmatch(label)
    if blind:
        return f"submission-{int(blind.group(1)):02d}"
    text = unicodedata.normalize("NFC", label)
    readable = UNSAFE.sub("-", text).strip("-.")
    encoded = readable.encode("utf-8")
    if len(encoded) > MAX_BYTES:
        readable = encoded[:MAX_BYTES].decode("utf-8", errors="ignore").rstrip("-.")
    stem = readable or FALLBACK
    exact = stem == label and stem == stem.casefold() and stem.split(".")[0] not in RESERVED
    if exact and not BLIND.fullmatch(stem) and not stem.startswith("submission-"):
        return stem
    digest = hashlib.sha256(label.encode("utf-8", errors="surrogatepass")).hexdigest()[:DIGEST_CHARS]
    return f"{stem}-{digest}"
