"""`gradelib new-takehome NAME [--into DIR]`: a take-home package a team starts from, whose tests pass as
written and which `gradelib grade` grades once it is installed.

The files come from `template/` (package data): every `*.tmpl` file is written without its suffix,
with `{{name}}` (the take-home's id), `{{package}}` (its Python package), `{{Class}}` (the prefix of
its class names) and `{{title}}` filled in; `PACKAGE` and `NAME` in a path become the package and the
id.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradelibError

TEMPLATE = Path(__file__).resolve().parent / "template"
SUFFIX = ".tmpl"
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}\Z")
EXECUTABLE = ("greet.sh",)  # the template sample's program
SAMPLE = "sample-one"  # the template's one sample submission, under submissions/


class NewTakehomeRefused(GradelibError):
    """The take-home cannot be written: a name that is not an id, one already registered, or a folder
    that already exists."""


def package_name(name: str) -> str:
    """The Python package of take-home `name`: `gradelib_<name>`."""
    return f"gradelib_{name}"


def new_takehome(name: str, into: Path, *, title: str | None = None) -> Path:
    """Write the package for take-home `name` into `into/takehome-<name>` and return that folder."""
    if not NAME.match(name):
        raise NewTakehomeRefused(f"{name!r} is not a take-home name: lowercase letters, digits, underscores")
    if name in takehomes.names():
        raise NewTakehomeRefused(f"a take-home named {name!r} is already installed: choose another name")
    target = Path(into) / f"takehome-{name}"
    if target.exists() or target.is_symlink():
        raise NewTakehomeRefused(f"{target} already exists: remove it or choose another folder (--into)")
    values = {
        "{{name}}": name,
        "{{package}}": package_name(name),
        "{{Class}}": "".join(part.capitalize() for part in name.split("_") if part),
        "{{title}}": title or f"the {name} take-home",
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".takehome-{name}-", dir=target.parent))
    try:
        for source in sorted(TEMPLATE.rglob(f"*{SUFFIX}")):
            relative = str(source.relative_to(TEMPLATE)).removesuffix(SUFFIX)
            relative = relative.replace("PACKAGE", values["{{package}}"]).replace("NAME", name)
            text = source.read_text(encoding="utf-8")
            for token, value in values.items():
                text = text.replace(token, value)
            path = work / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if path.name in EXECUTABLE:
                path.chmod(0o755)
        work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
