"""The sandbox for real: namespaces, connection log, limits, timeouts, scrubbed environment."""

from __future__ import annotations

import contextlib
import http.server
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, processes_matching, write_tree

from gradelib.intake import ingest
from gradelib.sandbox import ENV_FORCE_NO_NAMESPACES, TAIL_BYTES, Limits, Sandbox, Service, tool

NETWORK_SCRIPT = """
import socket, urllib.request
for target in [("1.1.1.1", 443)]:
    try:
        socket.create_connection(target, timeout=2)
    except OSError as exc:
        print("connect failed:", exc)
try:
    urllib.request.urlopen("https://api.example.com/v1/x", timeout=3)
except Exception as exc:
    print("url failed:", exc)
"""


@pytest.fixture
def sub(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "sub", {"net.py": NETWORK_SCRIPT, "run.sh": "#!/usr/bin/env bash\nenv\n"})


def test_network_is_off_and_every_attempt_is_logged_with_its_host(sub: Path) -> None:
    with Sandbox(sub) as box:
        result = box.run(["python3", "net.py"], box.copy("a"))
    assert result.exit_code == 0, result.stderr
    assert result.isolation.network_verified
    assert "Network is unreachable" in result.stdout
    described = [c.describe() for c in result.network_attempts]
    assert any(c.address == "1.1.1.1" and c.port == 443 and c.result == "ENETUNREACH" for c in result.connections)
    assert any(c.host == "api.example.com" and c.port == 443 for c in result.connections), described
    assert "api.example.com" in result.dns_names


@pytest.mark.skipif(tool("strace") is None, reason="compares a run under strace with one without")
def test_a_run_whose_connections_are_not_logged_runs_without_strace_and_keeps_its_exit_status(sub: Path) -> None:
    argv = ["sh", "-c", "python3 net.py; grep TracerPid /proc/$$/status; exit 3"]
    with Sandbox(sub) as box:
        logged = box.run(argv, box.copy("a"))
        quiet = box.run(argv, box.copy("b"), log_connections=False)
    assert logged.traced and logged.exit_code == 3 and "TracerPid:\t0" not in logged.stdout
    assert any(c.address == "1.1.1.1" for c in logged.connections)
    assert not quiet.traced and quiet.exit_code == 3 and "TracerPid:\t0" in quiet.stdout
    assert "Network is unreachable" in quiet.stdout and quiet.connections == ()
    assert not any("strace" in note for note in quiet.notes), "not logging was asked for: nothing to excuse"


def test_reviewer_secrets_do_not_reach_the_candidate(sub: Path, _reviewer_secret: str) -> None:
    assert os.environ["OPENAI_API_KEY"] == _reviewer_secret
    with Sandbox(sub) as box:
        result = box.run(["./run.sh", "replay"], box.copy("a"))
    assert result.exit_code == 0
    assert _reviewer_secret not in result.stdout
    assert "OPENAI_API_KEY" not in result.stdout
    assert "PATH=/usr/local/bin:/usr/bin:/bin" in result.stdout


def test_the_kits_own_paths_are_masked_in_what_a_run_shows(tmp_path: Path) -> None:
    """Copy, scratch and workspace paths differ on every run and name kit folders: placeholders instead."""
    script = "import os, sys\nprint(os.getcwd(), os.path.dirname(os.getcwd()), os.environ['HOME'])\nsys.exit('x' + 1)\n"
    sub = write_tree(tmp_path / "sub", {"crash.py": script})
    with Sandbox(sub) as box:
        copy = box.copy("missing-fixture", nest="elsewhere/deeper")
        result = box.run(["python3", str(copy / "crash.py")], copy, trace_files=True)
        root = str(box.root)
    assert result.stdout.split() == ["<submission>", "<copy>/elsewhere/deeper", "<run>/home"]
    assert 'File "<submission>/crash.py", line 3' in result.stderr
    assert result.cwd == "<submission>" and result.argv == ("python3", "<submission>/crash.py")
    assert "<submission>/crash.py" in result.opened
    shown = result.stdout + result.stderr + result.cwd + " ".join(result.argv + result.opened)
    assert root not in shown and "missing-fixture" not in shown and "gradelib-" not in shown


def _serve_text(text: bytes):  # type: ignore[no-untyped-def]
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *args: object) -> None:
            pass

    @contextlib.contextmanager
    def serve(sock):  # type: ignore[no-untyped-def]
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        server.socket.close()
        server.socket = sock
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server
        finally:
            server.shutdown()
            server.server_close()

    return serve


def test_kit_services_are_reachable_on_their_fixed_port_inside_the_namespace(sub: Path) -> None:
    service = Service("hello", 8099, _serve_text(b"from the kit"), {"HELLO_URL": "http://{host}:{port}/"})
    code = "import os, urllib.request as u; url = os.environ['HELLO_URL']; print(url, u.urlopen(url).read())"
    with Sandbox(sub) as box:
        result = box.run(["python3", "-c", code], box.copy("a"), services=[service])
    assert result.exit_code == 0, result.stderr
    assert "http://127.0.0.1:8099/ b'from the kit'" in result.stdout


def test_timeout_kills_the_whole_tree_even_detached_grandchildren(sub: Path) -> None:
    marker = f"gradelib-marker-{os.getpid()}-{time.monotonic_ns()}"
    with Sandbox(sub) as box:
        started = time.monotonic()
        result = box.run(
            [
                "bash",
                "-c",
                f"(setsid bash -c 'exec -a {marker} sleep 300' &); "
                f"(bash -c 'exec -a {marker} sleep 300' &); exec -a {marker} sleep 300",
            ],
            box.copy("a"),
            limits=Limits(wall_seconds=1.5),
        )
        elapsed = time.monotonic() - started
    assert result.timed_out and result.exit_code is None
    assert elapsed < 15
    time.sleep(0.3)
    assert processes_matching(marker) == []


def test_a_normal_exit_also_ends_what_it_left_running(sub: Path) -> None:
    marker = f"gradelib-leftover-{time.monotonic_ns()}"
    with Sandbox(sub) as box:
        result = box.run(["bash", "-c", f"(setsid bash -c 'exec -a {marker} sleep 300' &); echo bye"], box.copy("a"))
    assert result.exit_code == 0 and "bye" in result.stdout
    time.sleep(0.3)
    assert processes_matching(marker) == []


@pytest.mark.parametrize(
    ("code", "limits", "expect"),
    [
        ("x = bytearray(3 * 1024**3)", Limits(wall_seconds=20), "MemoryError"),
        ("open('big', 'wb').write(b'x' * 4 * 1024**2)", Limits(file_bytes=1024**2, wall_seconds=20), "exit"),
        ("while True: pass", Limits(cpu_seconds=1, wall_seconds=20), "cpu"),
    ],
    ids=["memory", "file-size", "cpu"],
)
def test_resource_limits_bite(sub: Path, code: str, limits: Limits, expect: str) -> None:
    with Sandbox(sub) as box:
        result = box.run(["python3", "-c", code], box.copy("a"), limits=limits)
    assert not result.timed_out
    assert result.exit_code not in (0, None)
    if expect == "MemoryError":
        assert "MemoryError" in result.stderr
    if expect == "cpu":
        assert result.exit_code == 128 + 24  # SIGXCPU


def test_output_flood_is_cut_and_the_command_killed(sub: Path) -> None:
    with Sandbox(sub) as box:
        result = box.run(["yes", "flood"], box.copy("a"), limits=Limits(output_bytes=64 * 1024, wall_seconds=30))
    assert result.output_limit_hit
    assert result.stdout_bytes > 64 * 1024
    assert len(result.stdout) < 64 * 1024 + TAIL_BYTES + 200, "the head and the tail are kept, not the flood"
    assert "bytes not kept" in result.stdout and "flood" in result.stdout[-100:]


def test_fork_bomb_is_bounded_and_leaves_nothing(sub: Path) -> None:
    marker = f"gradelib-bomb-{time.monotonic_ns()}"
    bomb = f"exec -a {marker} bash -c 'b(){{ b | b & }}; b; sleep 30'"
    with Sandbox(sub) as box:
        started = time.monotonic()
        result = box.run(["bash", "-c", bomb], box.copy("a"), limits=Limits(wall_seconds=3, processes=64))
    assert result.timed_out
    assert time.monotonic() - started < 20
    time.sleep(0.5)
    assert processes_matching(marker) == []


def test_the_original_submission_is_never_written(sub: Path) -> None:
    before = ingest.digest(sub)
    with Sandbox(sub) as box:
        copy = box.copy("a")
        box.run(["bash", "-c", "rm -rf ./* ; echo pwned > run.sh; mkdir -p out; echo x > out/new"], copy)
        assert (copy / "run.sh").read_text() == "pwned\n"
    assert ingest.digest(sub) == before


def test_candidate_runs_unprivileged_and_sees_only_the_system_and_its_copy(sub: Path) -> None:
    """The reviewer's home, the kit's repository (reports, gradebook, other submissions) and /run are not there."""
    hidden = ["/root", "/home", "/run", str(ROOT), str(ROOT / "reports"), str(sub)]
    probe = "id -u; for p in " + " ".join(hidden) + '; do test -e "$p" && echo "visible $p"; done; touch /usr/x 2>&1'
    with Sandbox(sub) as box:
        copy = box.copy("a")
        result = box.run(["bash", "-c", probe + "; echo data > /tmp/scratch && cat /tmp/scratch"], copy)
    uid, *rest = result.stdout.split("\n")
    if os.geteuid() == 0:
        assert uid != "0"
    assert "visible" not in result.stdout, result.stdout
    assert "Read-only file system" in result.stdout or "Permission denied" in result.stdout
    assert "data" in rest, "a private /tmp works"
    assert not Path("/tmp/scratch").exists() or Path("/tmp/scratch").read_text() != "data\n"


def test_forced_off_namespaces_say_so_and_never_claim_verification(sub: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_FORCE_NO_NAMESPACES, "1")
    with Sandbox(sub) as box:
        result = box.run(["python3", "-c", "print('ran')"], box.copy("a"))
    assert result.stdout.strip() == "ran"
    assert result.isolation.mode == "none"
    assert not result.isolation.network_verified
    assert ENV_FORCE_NO_NAMESPACES in result.isolation.reason


SCRIPT_AS_USER = """
import json, sys
sys.path.insert(0, {kit!r})
from pathlib import Path
from gradelib.sandbox import Sandbox, Limits
with Sandbox(Path({sub!r})) as box:
    r = box.run(["python3", "net.py"], box.copy("a"))
    t = box.run(["bash", "-c", "sleep 300"], box.copy("b"), limits=Limits(wall_seconds=1))
print(json.dumps({{"mode": r.isolation.mode, "reason": r.isolation.reason, "exit": r.exit_code,
                  "attempts": [c.describe() for c in r.network_attempts], "timed_out": t.timed_out}}))
"""


@contextlib.contextmanager
def _world_readable_kit(sub: Path) -> Iterator[tuple[Path, Path]]:
    """A copy of gradelib (stdlib-only sandbox) and a submission that any user can read."""
    folder = Path(tempfile.mkdtemp(prefix="gradelib-test-"))
    try:
        shutil.copytree(ROOT / "gradelib", folder / "gradelib", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(sub, folder / "sub")
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0))
        yield folder / "gradelib", folder / "sub"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_json(argv: list[str]) -> dict[str, object]:
    import json

    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd="/tmp")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_an_ordinary_user_gets_the_same_isolation_through_a_user_namespace(sub: Path) -> None:
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    with _world_readable_kit(sub) as (kit, copy):
        code = SCRIPT_AS_USER.format(kit=str(kit.parent), sub=str(copy))
        if os.geteuid() == 0:
            argv = [
                tool("setpriv") or "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "env",
                "HOME=/tmp",
                python,
                "-c",
                code,
            ]
        else:
            argv = [python, "-c", code]
        report = _run_json(argv)
    assert report["mode"] == "user-namespaces", report
    assert report["exit"] == 0
    assert any("1.1.1.1:443 -> ENETUNREACH" in a for a in report["attempts"])  # type: ignore[union-attr]
    assert report["timed_out"] is True


def test_where_namespaces_are_refused_the_sandbox_says_so_loudly(sub: Path) -> None:
    """A user namespace whose namespace limits are 0: unshare fails with ENOSPC, as in locked-down hosts."""
    unshare = tool("unshare")
    if unshare is None or subprocess.run([unshare, "-Ur", "true"], capture_output=True).returncode != 0:
        pytest.skip("this machine cannot create the user namespace the test uses to forbid namespaces")
    with _world_readable_kit(sub) as (kit, copy):
        code = SCRIPT_AS_USER.format(kit=str(kit.parent), sub=str(copy))
        limits = (
            'echo 0 > /proc/sys/user/max_user_namespaces; echo 0 > /proc/sys/user/max_net_namespaces; exec "$0" -c "$1"'
        )
        report = _run_json([unshare, "-Ur", "sh", "-c", limits, sys.executable, code])
    assert report["mode"] == "none"
    assert "unavailable" in str(report["reason"]) and "unshare" in str(report["reason"])
    assert report["exit"] == 0
    assert report["timed_out"] is True


def test_strace_is_available_for_connection_logging() -> None:
    """The setup installs strace; without it attempts go unseen (and the kit reports that)."""
    assert tool("strace"), "strace missing: run the README's setup command"


def test_run_sh_without_exec_bit_runs_through_bash(tmp_path: Path) -> None:
    sub = write_tree(tmp_path / "s", {"go.txt": "x"})
    (sub / "run.sh").write_text(textwrap.dedent("echo mode=$1\n"))
    from gradelib.takehomes.replay.runs import _command

    with Sandbox(sub) as box:
        copy = box.copy("a")
        command = _command(copy, "replay")
        result = box.run(command, copy)
    assert command[0] == "bash"
    assert result.stdout.strip() == "mode=replay"


def test_stable_paths_show_the_copy_and_a_tools_environment_at_fixed_places(tmp_path: Path) -> None:
    """What lets a tool find, in every run, what it made in setup: the copy at one path, its environment
    at another, read-only; both shown to the reviewer as placeholders. Without namespaces, the copy as is."""
    from gradelib.sandbox.mounts import OVERLAY, READ_ONLY, STABLE_ENV, STABLE_SUBMISSION, Mounts

    env = write_tree(tmp_path / "env", {"venv/marker": "made in setup\n"})
    subprocess.run(["chmod", "-R", "a+rX", str(env)], check=True)  # the sandbox's user reads it, as the cache does
    source = write_tree(tmp_path / "sub", {"a.txt": "x\n"})
    mounts = Mounts(
        read_only=(str(env),), placeholders=((str(env), "<python-env>"),),
        binds=((str(env), STABLE_ENV, READ_ONLY), (str(env), "/gradelib/scratch-env", OVERLAY)), stable_paths=True,
    )  # fmt: skip
    script = f"pwd; cat {STABLE_ENV}/venv/marker; ls {STABLE_SUBMISSION}; touch {STABLE_ENV}/x || echo read-only"
    script += "; cd /gradelib/scratch-env/venv && echo mine > new && mv new marker && cat marker && cd -"
    with Sandbox(source, mounts=mounts) as box:
        copy = box.copy("stable")
        result = box.run(["sh", "-c", script + "; echo y > b.txt"], copy, limits=Limits(wall_seconds=30))
        if not result.isolation.network_verified:
            pytest.fail(f"namespaces are needed here: {result.isolation.reason}")
        assert result.stdout.splitlines()[:5] == ["<submission>", "made in setup", "a.txt", "read-only", "mine"]
        assert (env / "venv" / "marker").read_text() == "made in setup\n", "an overlay's writes stay with the run"
        assert (copy / "b.txt").read_text() == "y\n", "the run wrote into its own copy"
        assert "<python-env>/x" in result.stderr and str(env) not in result.stderr
    with Sandbox(source, mounts=mounts, isolate=False) as box:
        copy = box.copy("plain")
        plain = box.run(["pwd"], copy, limits=Limits(wall_seconds=30))
    assert plain.stdout.strip() == "<submission>" and plain.exit_code == 0
