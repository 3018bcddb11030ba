"""Builds the hostile cohort: copies of the case folders here, plus what only a test can make.

The folders beside this file are small repos, one attack each (their README says which).
What cannot live in the kit's repository is added at test time: the reviewer's absolute
paths an attacker guessed (`targets.env`, `targets.json`), symlinks to the reviewer's
files, file names that are not UTF-8, random bytes, git repositories, and archives.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import secrets
import shutil
import stat
import struct
import subprocess
import tarfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SAMPLES = ROOT / "submissions"
CLEAN_REPLAY = "amara-okafor"
CLEAN_PAYMENTS = "kemi-adeyemi"
WEIRD_NAME = b"\x1b[31m<img src=x onerror=alert('gradelib-xss-file')>\n\xff.json"
HTML_NAME = "<img src=x onerror=alert('gradelib-xss-name')>"
ALL_ANSWERS = [{"id": f"T-{n:03d}", "label": "other", "justification": "fixed"} for n in range(1, 21)]


@dataclass
class Reviewer:
    """The reviewer's machine as the attacker sees it: a home with credentials, env keys, a gradebook."""

    home: Path
    outside: Path  # files outside every copy that no run may touch
    reports: Path
    markers: dict[str, str] = field(default_factory=dict)  # what -> secret marker string
    env: dict[str, str] = field(default_factory=dict)  # reviewer environment variables to set

    @property
    def ssh_key(self) -> Path:
        return self.home / ".ssh" / "id_rsa"

    @property
    def aws_creds(self) -> Path:
        return self.home / ".aws" / "credentials"

    @property
    def gradebook(self) -> Path:
        return self.reports / "gradebook.sqlite"

    @property
    def notes(self) -> Path:
        return self.reports / "reviewer-notes.txt"

    def secrets(self) -> list[str]:
        """Every planted marker (files and environment)."""
        return sorted(self.markers.values())


def _marker(kind: str) -> str:
    return f"GRADELIB-SECRET-{kind}-{secrets.token_hex(8)}"


def plant(root: Path) -> Reviewer:
    """A fake reviewer home with SSH and AWS credentials, secret env values, and files to protect."""
    reviewer = Reviewer(home=root / "home", outside=root / "outside", reports=root / "reports")
    m = reviewer.markers
    m |= {k: _marker(k) for k in ("SSH", "AWS", "NOTES", "BASHRC", "OPENAI", "AWSENV", "GITHUB", "OTHER")}
    (reviewer.home / ".ssh").mkdir(parents=True)
    (reviewer.home / ".aws").mkdir()
    reviewer.ssh_key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{m['SSH']}\n-----END OPENSSH PRIVATE KEY-----\n")
    reviewer.ssh_key.chmod(0o600)
    reviewer.aws_creds.write_text(f"[default]\naws_access_key_id = AKIA0000\naws_secret_access_key = {m['AWS']}\n")
    (reviewer.home / ".bashrc").write_text(f"export SECRET_TOKEN={m['BASHRC']}\n")
    reviewer.reports.mkdir()
    reviewer.notes.write_text(f"reviewer notes beside the gradebook: {m['NOTES']}\n")
    reviewer.outside.mkdir()
    (reviewer.outside / "sentinel.txt").write_text("must not change\n")
    (reviewer.outside / "folder").mkdir()
    (reviewer.outside / "folder" / "kept.txt").write_text("must not be deleted\n")
    reviewer.env = {
        "HOME": str(reviewer.home),
        "OPENAI_API_KEY": m["OPENAI"],
        "AWS_SECRET_ACCESS_KEY": m["AWSENV"],
        "GITHUB_TOKEN": m["GITHUB"],
    }
    return reviewer


def targets(reviewer: Reviewer, other_submission: Path) -> dict[str, str]:
    """The reviewer's absolute paths, as an attacker who guessed them writes them into a repo."""
    return {
        "REVIEWER_HOME": str(reviewer.home),
        "SSH_KEY": str(reviewer.ssh_key),
        "AWS_CREDS": str(reviewer.aws_creds),
        "GRADEBOOK": str(reviewer.gradebook),
        "REVIEWER_NOTES": str(reviewer.notes),
        "OUTSIDE": str(reviewer.outside),
        "OTHER_SUBMISSION": str(other_submission),
        "REPO_SUBMISSIONS": str(SAMPLES),
    }


def write_targets(folder: Path, values: Mapping[str, str]) -> None:
    """`targets.env` (for shell) and `targets.json` (for Python and node) in a case folder."""
    (folder / "targets.env").write_text("".join(f"{k}={_sh(v)}\n" for k, v in values.items()))
    (folder / "targets.json").write_text(json.dumps(dict(values), indent=1) + "\n")


def _sh(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def copy_case(takehome: str, case: str, dest: Path) -> Path:
    """A copy of one case folder; run.sh is executable unless the case is about its mode."""
    shutil.copytree(HERE / takehome / case, dest, symlinks=True)
    script = dest / "run.sh"
    if script.is_file() and not script.is_symlink():
        script.chmod(0o644 if case == "run-sh-not-executable" else 0o755)
    for extra in dest.glob("*.sh"):
        if extra.name != "run.sh":
            extra.chmod(0o755)
    return dest


def copy_sample(takehome: str, name: str, dest: Path) -> Path:
    return Path(shutil.copytree(SAMPLES / takehome / name, dest, symlinks=True))


def garbage(seed: int, size: int) -> bytes:
    """Random bytes, the same for a seed (never valid UTF-8 or JSON)."""
    return b"\xff\xfe\x00" + random.Random(seed).randbytes(size)


# -- what only a test can add to a case --------------------------------------------------------


def add_replay_links(folder: Path, reviewer: Reviewer) -> None:
    """links-committed: the committed results point at the reviewer's files."""
    (folder / "out").mkdir(exist_ok=True)
    (folder / "out" / "answers.json").symlink_to(reviewer.ssh_key)
    (folder / "tickets.json").symlink_to(reviewer.aws_creds)
    (folder / "cassettes" / "x.json").symlink_to("/etc/passwd")
    (folder / "cassettes" / "home").symlink_to(reviewer.home)
    (folder / "NOTE.md").symlink_to(reviewer.gradebook)


def add_payments_links(folder: Path, reviewer: Reviewer) -> None:
    """links (payments): the files the kit reads point at the reviewer's files."""
    (folder / "checkout.mjs").symlink_to(reviewer.ssh_key)
    (folder / "NOTE.md").symlink_to(reviewer.aws_creds)
    (folder / "package.json").symlink_to(reviewer.gradebook)


def add_weird_cassette(folder: Path) -> None:
    """weird-names: one cassette named with ESC, HTML, a newline and a non-UTF-8 byte."""
    (folder / "cassettes").mkdir(exist_ok=True)
    with open(os.path.join(os.fsencode(folder), b"cassettes", WEIRD_NAME), "wb") as handle:
        handle.write(b'{"request": {}, "response": {}}')


def add_replay_garbage(folder: Path) -> None:
    """binary-garbage (replay): every file the kit reads is random bytes, run.sh too."""
    (folder / "cassettes").mkdir(exist_ok=True)
    (folder / "out").mkdir(exist_ok=True)
    for number, rel in enumerate(("run.sh", "tickets.json", "cassettes/T-001.json", "cassettes/T-002.json")):
        (folder / rel).write_bytes(garbage(number, 3000))
    (folder / "out" / "answers.json").write_bytes(garbage(9, 3000))
    (folder / "run.sh").chmod(0o755)


def add_payments_garbage(folder: Path) -> None:
    """binary-garbage (payments)."""
    for number, rel in enumerate(("checkout.mjs", "NOTE.md", "package.json")):
        (folder / rel).write_bytes(garbage(20 + number, 3000))


def add_clean_replay(folder: Path) -> None:
    """binds-stub-port: a clean sample's triage, cassettes and tickets under the squatting run.sh."""
    sample = SAMPLES / "replay" / CLEAN_REPLAY
    for rel in ("triage.py", "tickets.json", ".gitignore"):
        shutil.copy2(sample / rel, folder / rel)
    for rel in ("cassettes", "out"):
        shutil.copytree(sample / rel, folder / rel)


def add_run_sh_link(folder: Path, reviewer: Reviewer) -> None:
    (folder / "run.sh").symlink_to(reviewer.home / ".bashrc")


def add_fifo(folder: Path) -> None:
    """A named pipe where a cassette should be: reading it would block forever."""
    (folder / "cassettes").mkdir(exist_ok=True)
    os.mkfifo(folder / "cassettes" / "T-002.json")


def git(folder: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Candidate", "-c", "user.email=c@example.com", "-C", str(folder), *args]
    out = subprocess.run(command, check=True, capture_output=True, env={"PATH": os.environ["PATH"], "HOME": "/"})
    return out.stdout.decode().strip()


def init_empty_repo(folder: Path) -> None:
    """empty-repo: `git init` and nothing else."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q")


def add_git_gpg_program(folder: Path) -> None:
    """git-gpg-program: history where the last cassette edit is "signed", and a config that verifies it."""
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "take-home")
    (folder / "cassettes" / "T-001.json").write_text('{"request": {"n": 1}, "response": {"edited": true}}\n')
    git(folder, "add", "-A")
    tree, parent = git(folder, "write-tree"), git(folder, "rev-parse", "HEAD")
    commit = (
        f"tree {tree}\nparent {parent}\nauthor Candidate <c@example.com> 1700000000 +0000\n"
        "committer Candidate <c@example.com> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n wsBcBAABCAAQBQJlZ2dnCRAAAAAAAAAAAAAA\n -----END PGP SIGNATURE-----\n"
        "\nfix a cassette\n"
    )
    path = folder / ".git" / "signed-commit"
    path.write_text(commit)
    sha = git(folder, "hash-object", "-t", "commit", "-w", str(path))
    path.unlink()
    git(folder, "update-ref", "HEAD", sha)
    git(folder, "config", "log.showSignature", "true")
    git(folder, "config", "gpg.program", "./gpg-evil.sh")


# -- archives ------------------------------------------------------------------------------------

RUN_SH = b"#!/usr/bin/env bash\nmkdir -p out; echo '[]' > out/answers.json\n"


def _tar_add(tf: tarfile.TarFile, name: str, data: bytes = b"", **attrs: object) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o755
    for key, value in attrs.items():
        setattr(info, key, value)
    tf.addfile(info, io.BytesIO(data) if data else None)


def zip_slip(path: Path, escape_to: Path) -> None:
    """A `../` entry that would land in `escape_to` if extracted as written."""
    up = "../" * 12
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("zip-slip/run.sh", RUN_SH)
        zf.writestr(up + str(escape_to).lstrip("/"), b"pwned by zip-slip\n")


def tar_absolute(path: Path, escape_to: Path) -> None:
    """An absolute entry."""
    with tarfile.open(path, "w:gz") as tf:
        _tar_add(tf, "tar-absolute/run.sh", RUN_SH)
        _tar_add(tf, str(escape_to), b"pwned by an absolute entry\n")


def tar_symlink(path: Path, target: Path) -> None:
    """A symlink entry to a reviewer file, then a file written through it."""
    with tarfile.open(path, "w:gz") as tf:
        _tar_add(tf, "tar-symlink/run.sh", RUN_SH)
        _tar_add(tf, "tar-symlink/out", type=tarfile.SYMTYPE, linkname=str(target.parent))
        _tar_add(tf, "tar-symlink/out/" + target.name, b"pwned through a link\n")


def tar_hardlink(path: Path) -> None:
    """A hard link entry to a system file."""
    with tarfile.open(path, "w:gz") as tf:
        _tar_add(tf, "tar-hardlink/run.sh", RUN_SH)
        _tar_add(tf, "tar-hardlink/passwd", type=tarfile.LNKTYPE, linkname="/etc/passwd")


def zip_symlink(path: Path, target: Path) -> None:
    """A zip entry whose Unix mode says symlink (how `zip --symlinks` stores one)."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("zip-symlink/run.sh", RUN_SH)
        info = zipfile.ZipInfo("zip-symlink/answers.json")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, str(target))


def zip_bomb(path: Path) -> None:
    """64 MiB of zeros in one entry, about 64 KiB packed."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("zip-bomb/run.sh", RUN_SH)
        with zf.open("zip-bomb/cassettes/T-001.json", "w") as entry:
            block = bytes(1 << 20)
            for _ in range(64):
                entry.write(block)


def zip_bomb_declared(path: Path) -> None:
    """A central directory that declares a 2 GiB entry (the data is tiny)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zip-bomb-declared/run.sh", RUN_SH)
        zf.writestr("zip-bomb-declared/big.bin", b"\0" * 1024)
    data = bytearray(path.read_bytes())
    central = data.rfind(b"PK\x01\x02")  # the last entry's central directory header
    struct.pack_into("<I", data, central + 24, 2**31 - 1)  # uncompressed size
    path.write_bytes(bytes(data))


def tar_bomb(path: Path) -> None:
    """A tar.gz whose one entry is 64 MiB of zeros."""
    size = 64 << 20
    with tarfile.open(path, "w:gz", compresslevel=9) as tf:
        _tar_add(tf, "tar-bomb/run.sh", RUN_SH)
        info = tarfile.TarInfo("tar-bomb/cassettes/T-001.json")
        info.size = size
        tf.addfile(info, _Zeros(size))


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)


def zip_bad_utf8(path: Path) -> None:
    """An entry whose name claims UTF-8 (flag bit 11) but holds bytes that are not UTF-8."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("zip-bad-utf8/run.sh", RUN_SH)
        zf.writestr("zip-bad-utf8/cassettes/PLACEHOLDER.json", b"{}")
    raw = bytearray(path.read_bytes().replace(b"PLACEHOLDER", b"\xff\xfe\x1b[31m\xc3(\x80x"))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (found := raw.find(signature, start)) >= 0:
            flags = struct.unpack_from("<H", raw, found + offset)[0]
            struct.pack_into("<H", raw, found + offset, flags | 0x800)
            start = found + 4
    path.write_bytes(bytes(raw))


def tar_weird_names(path: Path) -> None:
    """A replay repo (weird-names) with its cassette's strange name, packed as tar.gz."""
    case = HERE / "replay" / "weird-names"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT, encoding="utf-8", errors="surrogateescape") as tf:
        for rel in ("README.md", "run.sh"):
            _tar_add(tf, f"tar-weird-names/{rel}", (case / rel).read_bytes())
        name = "tar-weird-names/cassettes/" + os.fsdecode(WEIRD_NAME)
        _tar_add(tf, name, b'{"request": {}, "response": {}}', mode=0o644)


def deep_nesting(path: Path, depth: int = 1100) -> None:
    """A tar.gz with one file 1100 folders deep (deeper than Python's recursion limit)."""
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        _tar_add(tf, "deep-nesting/run.sh", RUN_SH)
        _tar_add(tf, "deep-nesting/" + "d/" * depth + "x.txt", b"x")


def not_an_archive(path: Path) -> None:
    path.write_bytes(garbage(42, 4000))


def empty_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w"):
        pass


# -- checking that nothing changed -----------------------------------------------------------------


def snapshot(paths: Iterable[Path]) -> dict[str, tuple[object, ...]]:
    """Every entry under the paths (links not followed): kind, mode, size, mtime, content hash."""
    seen: dict[str, tuple[object, ...]] = {}
    for top in paths:
        if not os.path.lexists(top):
            seen[str(top)] = ("absent",)
            continue
        entries = [str(top)]
        if top.is_dir() and not top.is_symlink():
            for dirpath, dirnames, filenames in os.walk(top):
                entries += [os.path.join(dirpath, n) for n in dirnames + filenames]
        for entry in entries:
            info = os.lstat(entry)
            if stat.S_ISLNK(info.st_mode):
                seen[entry] = ("link", os.readlink(entry))
            elif stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256(Path(entry).read_bytes()).hexdigest()
                seen[entry] = ("file", stat.S_IMODE(info.st_mode), info.st_size, info.st_mtime_ns, digest)
            else:
                seen[entry] = ("other", stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), info.st_mtime_ns)
    return seen


def regular_files(root: Path) -> list[Path]:
    """Every regular file under root (links never followed)."""
    found = []
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                found.append(path)
    return found
