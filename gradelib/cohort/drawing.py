"""The cohort charts as PNG pictures, drawn in the notebook's kernel or ahead of it by a second process.

Drawing the six charts is most of the summary notebook's time, and a notebook runs its cells one
after another on one core. `gradelib summary` starts this module as a second process beside the
kernel (`python -m gradelib.cohort.drawing`): it reads the same gradebook, draws the charts in the
notebook's order into a private folder, and the kernel's chart cells take each picture from there
instead of drawing it. The two share the work: a chart is drawn by whichever claims it first (an
exclusive file per chart), so a kernel that reaches a chart the other has not started draws it
itself. A picture is used only when it was drawn from the same cohort (`Cohort.digest`): a score
saved between the two reads, or a second process that died, means the kernel draws it. Without a
folder (a notebook opened in JupyterLab) every chart is drawn here.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gradelib.display.render import Html

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from gradelib.cohort.table import Cohort

    Chart = Callable[[Cohort], Figure | Html]

DIGEST_FILE = "cohort.json"  # the second process's cohort digest and pid, written before it claims a chart
DONE_FILE = "done"  # the second process has ended (drawn, failed or given up)
WAIT_SECONDS = 30.0  # at most this long for a picture the other process claimed
POLL_SECONDS = 0.02


@dataclass(frozen=True)
class Picture:
    """A chart drawn to PNG; Jupyter shows it as an image (and nbconvert embeds it)."""

    png: bytes

    def _repr_png_(self) -> bytes:
        return self.png

    def __repr__(self) -> str:
        return f"<chart: PNG, {len(self.png)} bytes>"


def png(figure: Figure) -> bytes:
    """A figure as the PNG a notebook shows (its own dpi, cropped to what it draws)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", facecolor="white")
    return buffer.getvalue()


def draw(cohort: Cohort, chart: Chart, ahead: str | Path | None = None) -> Picture | Html:
    """`chart` of `cohort` as a picture: taken from `ahead` (the folder `gradelib summary` draws into) when
    the second process drew it from the same cohort, else drawn here; a message (too little data) as it is."""
    folder = Path(ahead) if ahead else None
    if folder is None or not folder.is_dir() or _claim(folder, chart.__name__):
        return _drawn(chart(cohort))
    picture = folder / f"{cohort.digest}-{chart.__name__}.png"
    message = picture.with_suffix(".none")  # the other drew a message: cheap to show here
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if picture.is_file():
            return Picture(picture.read_bytes())
        if message.exists() or _other_digest(folder) not in (None, cohort.digest) or (folder / DONE_FILE).exists():
            break  # drawn from another cohort, or it ended without this one
        time.sleep(POLL_SECONDS)
    if picture.is_file():
        return Picture(picture.read_bytes())
    return _drawn(chart(cohort))


def _drawn(shown: Figure | Html) -> Picture | Html:
    return shown if isinstance(shown, Html) else Picture(png(shown))


def _claim(folder: Path, name: str) -> bool:
    """Whether this process is the first to claim chart `name` in `folder` (then it draws it)."""
    try:
        os.close(os.open(folder / f"{name}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True  # an unusable folder: draw here
    return True


def _other_digest(folder: Path) -> str | None:
    """The cohort digest the second process drew from, or None before it has read the gradebook."""
    try:
        return str(json.loads((folder / DIGEST_FILE).read_text(encoding="utf-8"))["digest"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, data: bytes) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    partial.replace(path)


def draw_ahead(folder: Path, cohort: Cohort, charts: Sequence[Chart]) -> list[str]:
    """Draw each chart not yet claimed into `folder`, last first; the names of those drawn here.

    The kernel draws from the first: the two meet in the middle, and the kernel waits only for the
    chart the other is drawing when it gets there.
    """
    _write(folder / DIGEST_FILE, json.dumps({"digest": cohort.digest, "pid": os.getpid()}).encode())
    drawn = []
    for chart in reversed(charts):
        if not _claim(folder, chart.__name__):
            continue  # the kernel got there first
        shown = chart(cohort)
        if not isinstance(shown, Html):
            _write(folder / f"{cohort.digest}-{chart.__name__}.png", png(shown))
            drawn.append(chart.__name__)
        else:  # a message is cheap: the kernel shows its own
            _write(folder / f"{cohort.digest}-{chart.__name__}.none", b"")
    return drawn


def main(argv: Sequence[str]) -> int:
    """`python -m gradelib.cohort.drawing FOLDER PARAMETERS_JSON`: the summary's charts, drawn ahead into FOLDER."""
    folder = Path(argv[0])
    try:
        from gradelib.cohort import charts
        from gradelib.cohort.table import load

        parameters = json.loads(argv[1])
        cohort = load(
            parameters["gradebook"],
            parameters["reports_dir"],
            takehome=parameters.get("takehome"),
            reviewer=parameters.get("reviewer"),
            graded_from=parameters.get("graded_from"),
            graded_to=parameters.get("graded_to"),
        )
        draw_ahead(folder, cohort, charts.CHARTS)
    except Exception as exc:  # the kernel draws what is missing; the reason goes to the summary's log
        print(f"gradelib: charts not drawn ahead: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        with contextlib.suppress(OSError):
            (folder / DONE_FILE).touch()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
