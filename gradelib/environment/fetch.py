"""Fill the environment cache for a cohort while online, so grading can run `--offline`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.prepared import Environment, prepare
from gradelib.errors import SubmissionError
from gradelib.intake import ingest


@dataclass(frozen=True)
class Fetched:
    """One submission's environment after `deps fetch`, or why it could not be read."""

    path: Path
    name: str
    environment: Environment | None
    error: str | None = None

    def describe(self) -> str:
        """One line for the terminal."""
        if self.error:
            return f"{self.name}: cannot be read: {self.error}"
        summary = self.environment.summary() if self.environment else "nothing read"
        return f"{self.name}: {summary}"


def fetch(
    paths: Sequence[Path],
    settings: InstallSettings,
    progress: Callable[[Fetched], None] | None = None,
    recognises: Callable[[Path], bool] | None = None,
) -> list[Fetched]:
    """Install (or find in the cache) the declared dependencies of every submission under `paths`.

    `recognises` tells a submission folder by its take-home's own marker files (`takehomes.recognises`).
    """
    found: list[Fetched] = []
    subs = [sub for path in paths for sub in ingest.find_submissions(Path(path), recognises=recognises)]
    for origin in subs:
        try:
            with ingest.open_submission(origin) as sub:
                item = Fetched(origin, sub.name, prepare(sub.path, settings))
        except (SubmissionError, OSError) as exc:
            item = Fetched(origin, ingest.submission_name(origin), None, str(exc))
        found.append(item)
        if progress:
            progress(item)
    return found
