"""Sessions: `nox -s replay`, `nox -s record`, `nox -s tests`.

Environments are made with uv (`venv_backend="uv"`), so nox needs uv on PATH.
"""

import nox

nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "uv"
nox.options.sessions = ["replay"]

RUNTIME = ["pyyaml>=6.0,<7"]


@nox.session(python="3.11", venv_backend="uv")
def replay(session):
    session.install(*RUNTIME)
    session.run("python", "-B", "triage.py", "replay")


@nox.session(python="3.11", venv_backend="uv")
def record(session):
    session.install(*RUNTIME)
    session.run("python", "-B", "triage.py", "record")


@nox.session(python="3.11", venv_backend="uv")
def tests(session):
    session.install(*RUNTIME, "pytest>=8")
    session.run("pytest", "-q", *session.posargs)
