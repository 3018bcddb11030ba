"""Everything runs through nox: `nox -s record`, `nox -s replay`, `nox -s tests`, `nox -s lint`.

The dependencies live here (no requirements.txt): each session installs what it needs.
"""

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True  # record/replay are run a lot; don't rebuild the venv each time

PYTHON = "3.11"
RUNTIME = ["httpx>=0.27,<1", "backoff>=2.2"]


@nox.session(python=PYTHON)
def record(session: nox.Session) -> None:
    """Call the model for every ticket, write cassettes/ and out/answers.json."""
    session.install(*RUNTIME)
    session.run("python", "triage.py", "record", *session.posargs)


@nox.session(python=PYTHON)
def replay(session: nox.Session) -> None:
    """Rebuild out/answers.json from cassettes/ only (no network)."""
    session.install(*RUNTIME)
    session.run("python", "triage.py", "replay", *session.posargs)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    session.install(*RUNTIME, "pytest>=8")
    session.run("pytest", "-q", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "triage.py", "tests", "noxfile.py")
