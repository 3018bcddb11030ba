"""The floor: every command the kit's checks run, run bare (plain subprocess, no sandbox, no kit).

For one submission, `floor_one` runs in fresh temporary copies the same commands a grading
makes (see gradelib/takehomes/replay/grading.py and gradelib/takehomes/payments/), against the kit's own
servers started in this process on free loopback ports, and times each command's wall time
from start to exit. Server start-up and shutdown are timed apart: the floor is about the
candidates' programs. Copies are made before a command's clock starts.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gradelib import takehomes
from gradelib.environment import Environment, prepare
from gradelib.sandbox import SANDBOX_PATH, Isolation, RunResult, base_environment, link_node_modules
from gradelib.takehome import KEY_FILE, RESULT_MARKER
from gradelib.takehomes import payments, replay
from gradelib.takehomes.payments.clientruns import (
    AMOUNT,
    CHECKOUT,
    DRIVER_FOLDER,
    GATEWAY_PORT,
    HANDOUT_STUB,
    ORDERS_AMOUNTS,
    OUTAGE_REPEAT_UNDER_SECONDS,
    WITH_STUB,
    find_tests,
    seed_for,
)
from gradelib.takehomes.payments.fakegateway import Gateway
from gradelib.takehomes.payments.suites import run_suites
from gradelib.takehomes.replay.modelstub import ModelStub, packaged_tickets
from gradelib.takehomes.rubric import takehome_data

PATH = SANDBOX_PATH
MAX_CALLS = replay.MAX_CALLS  # the kit stops a record run once the stub has seen more calls than this
MAX_REQUESTS = 50  # the kit stops a payment client past this many gateway requests (a flood)
OUTAGE_RUNS = 3
REPLAY_TIMEOUT = replay.REPLAY_LIMITS.wall_seconds
RECORD_TIMEOUT = replay.RECORD_LIMITS.wall_seconds
SCENARIO_TIMEOUT = 30.0
SLOW_TIMEOUT = 40.0
TEST_TIMEOUT = 120.0
KILL_POLL = 0.005


@dataclass(frozen=True)
class Command:
    """One bare command: what it was, how long it took, how it ended."""

    label: str
    seconds: float
    exit_code: int | None
    stopped: bool = False  # killed on purpose (the kit's stop rule), not a failure
    cpu_seconds: float = 0.0  # user + system time of the command's reaped processes


@dataclass
class Floor:
    """The bare commands of one submission."""

    name: str
    takehome: str
    commands: list[Command] = field(default_factory=list)
    server_seconds: float = 0.0  # start + stop of the kit's servers, apart from the commands
    servers: int = 0
    wall_seconds: float = 0.0  # the whole function, copies and servers included

    @property
    def command_seconds(self) -> float:
        """Sum of the commands' wall times: this submission's share of the floor."""
        return sum(c.seconds for c in self.commands)

    @property
    def cpu_seconds(self) -> float:
        """Sum of the commands' CPU times (waiting on a server or a timer costs none)."""
        return sum(c.cpu_seconds for c in self.commands)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the sums."""
        return {**asdict(self), "command_seconds": self.command_seconds, "cpu_seconds": self.cpu_seconds}


def base_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """What the kit's sandbox gives a command (minus its wrappers): a small, scrubbed environment."""
    (home / "home").mkdir(exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    env = base_environment(home / "home", home / "tmp")  # the kit's own, so the floor runs like the kit
    env.update(extra or {})
    env["PATH"] = ":".join([*_environment.bin_dirs(), env["PATH"]])  # the submission's declared packages
    return env


_environment = Environment()  # the declared dependencies of the submission being measured (floor_one sets it)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_bare(
    label: str,
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stop: threading.Event | None = None,
    stderr: list[str] | None = None,
) -> tuple[Command, str]:
    """Run argv with plain subprocess; kill its group on timeout or when `stop` is set. (Command, stdout).

    CPU time is the RUSAGE_CHILDREN difference around the command: exact as long as this
    process runs one command at a time (the floor does; its servers are threads).
    """
    cpu_before = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    stopped = threading.Event()
    watcher = None
    if stop is not None:

        def watch() -> None:
            while proc.poll() is None:
                if stop.wait(KILL_POLL):
                    if proc.poll() is None:
                        stopped.set()
                        _kill(proc)
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
    try:
        out, _err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        out, _err = proc.communicate()
    seconds = time.perf_counter() - started
    _kill(proc)  # whatever the command left in its group
    if watcher is not None:
        watcher.join()
    code = proc.returncode
    cpu = _children_cpu() - cpu_before
    if stderr is not None:
        stderr.append(_err.decode("utf-8", "replace"))
    return Command(label, seconds, code, stopped.is_set(), cpu), out.decode("utf-8", "replace")


def own_loopback(argv: Sequence[str]) -> list[str]:
    """argv in a network namespace of its own with loopback up, where `unshare` can make one: the sandbox gives
    every run its own ports, so bare runs side by side must not meet each other's servers on a fixed port
    (the handout's 8099). The namespace costs milliseconds; without one, argv as it is."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip", path="/usr/sbin:/sbin:/usr/bin:/bin")
    if unshare is None or ip is None:
        return list(argv)
    user = [] if os.geteuid() == 0 else ["--map-root-user"]
    return [unshare, "--net", *user, "sh", "-c", f'{ip} link set lo up && exec "$@"', "sh", *argv]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def serving(server: ModelStub | Gateway, floor: Floor) -> Iterator[int]:
    """Serve a kit server on a free loopback port; its start and stop go to floor.server_seconds."""
    started = time.perf_counter()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    context = server.serve(sock)
    context.__enter__()
    floor.server_seconds += time.perf_counter() - started
    floor.servers += 1
    try:
        yield port
    finally:
        started = time.perf_counter()
        context.__exit__(None, None, None)
        floor.server_seconds += time.perf_counter() - started


class Workspace:
    """Fresh copies of one submission in a temporary folder (not timed)."""

    def __init__(self, source: Path, root: Path) -> None:
        self.source, self.root, self.count = source, root, 0

    def copy(self, label: str) -> Path:
        """A fresh copy, plus a scratch folder beside it for HOME and TMPDIR."""
        self.count += 1
        base = self.root / f"{self.count:02d}-{label}"
        target = base / "submission"
        shutil.copytree(self.source, target, symlinks=True)
        if _environment.node is not None:
            link_node_modules(target, _environment.node.node_modules)
        return target


# -- replay ------------------------------------------------------------------------------------


def _variation_env(index: int) -> dict[str, str]:
    """The kit's run A / run B environment, without its wrappers (libfaketime, taskset)."""
    variation = replay.variations()[index]
    return {k: v for k, v in variation.env.items() if not k.startswith(("LD_", "FAKETIME"))}


def _removed_cassette(copy: Path) -> str | None:
    """The cassette the kit deletes: chosen by hash among the committed ones."""
    folder = copy / replay.CASSETTES
    if not folder.is_dir():
        return None
    pool = sorted(str(p.relative_to(copy)) for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    if not pool:
        return None
    return pool[int(hashlib.sha256("\n".join(pool).encode()).hexdigest(), 16) % len(pool)]


def _tickets(source: Path) -> list[dict[str, str]]:
    try:
        rows = [{"id": str(t["id"]), "body": str(t["body"])} for t in json.loads((source / replay.TICKETS).read_text())]
        return rows or packaged_tickets()
    except (OSError, ValueError, TypeError, KeyError):
        return packaged_tickets()


def _record(floor: Floor, label: str, copy: Path, stub: ModelStub) -> Command:
    """`bash run.sh record` against the stub, killed once it goes past the call cap (as the kit does)."""
    over = threading.Event()
    stub.on_call = lambda call: over.set() if call.index + 1 > MAX_CALLS else None
    with serving(stub, floor) as port:
        env = base_env(
            copy.parent,
            {
                "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "OPENAI_API_KEY": replay.STUB_KEY,
                "MODEL": stub.model,
            },
        )
        command, _ = run_bare(label, ["bash", replay.RUN_SH, "record"], copy, env, RECORD_TIMEOUT, stop=over)
    floor.commands.append(command)
    return command


def floor_replay(source: Path, work: Workspace, floor: Floor) -> None:
    """Two replays, a missing-fixture replay, record x2 + replay (healthy stub), record (failing stub), record
    over the committed fixtures + replay."""
    argv = ["bash", replay.RUN_SH, "replay"]
    for index, label in ((0, "replay A"), (1, "replay B")):
        copy = work.copy(label.replace(" ", "-"))
        command, _ = run_bare(label, argv, copy, base_env(copy.parent, _variation_env(index)), REPLAY_TIMEOUT)
        floor.commands.append(command)
    copy = work.copy("missing-fixture")
    removed = _removed_cassette(copy)
    if removed is not None:
        (copy / removed).unlink()
        (copy / replay.ANSWERS).unlink(missing_ok=True)
        command, _ = run_bare("replay, one cassette deleted", argv, copy, base_env(copy.parent), REPLAY_TIMEOUT)
        floor.commands.append(command)
    tickets = _tickets(source)
    copy = work.copy("record")
    for cassette in (copy / replay.CASSETTES).rglob("*") if (copy / replay.CASSETTES).is_dir() else ():
        if cassette.is_file() or cassette.is_symlink():
            cassette.unlink()
    for number in (1, 2):
        _record(
            floor,
            f"record #{number} (healthy stub)",
            copy,
            ModelStub("healthy", tickets=tickets, salt=replay.CHECK_SALT),
        )
    command, _ = run_bare("replay after record", argv, copy, base_env(copy.parent), REPLAY_TIMEOUT)
    floor.commands.append(command)
    copy = work.copy("record-failing")
    _record(floor, "record (failing stub)", copy, ModelStub("failing", tickets=tickets))
    copy = work.copy("record-over-committed")  # the committed cassettes stay
    (copy / replay.ANSWERS).unlink(missing_ok=True)
    _record(
        floor,
        "record over the committed fixtures",
        copy,
        ModelStub("healthy", tickets=tickets, salt=replay.RERECORD_SALT),
    )
    (copy / replay.ANSWERS).unlink(missing_ok=True)
    command, _ = run_bare("replay after recording over them", argv, copy, base_env(copy.parent), REPLAY_TIMEOUT)
    floor.commands.append(command)


# -- payments ----------------------------------------------------------------------------------


def _driver() -> str:
    return str(takehome_data(payments.TAKEHOME).joinpath("driver.mjs"))


def _client(
    floor: Floor,
    label: str,
    copy: Path,
    gateway: Gateway,
    timeout: float,
    *,
    at_first_request: bool = False,
    scenario: str = "",
    number: int = 0,
) -> tuple[Command, dict[str, Any] | None]:
    """One driver run against the gateway; stopped at its first request (restart) or past a flood."""
    base = gateway.counts().requests
    stop = threading.Event()

    def on_request(_request: object) -> None:
        made = gateway.counts().requests - base
        if made > MAX_REQUESTS or (at_first_request and made >= 1):
            stop.set()

    gateway.on_request = on_request
    node = shutil.which("node", path=PATH) or "node"
    key = secrets.token_hex(16)
    key_file = copy / KEY_FILE
    key_file.write_text(key)
    amounts = ",".join(str(a) for a in (ORDERS_AMOUNTS if scenario == "orders" else (AMOUNT,)))
    argv = [node, _driver(), str(copy / CHECKOUT), amounts, str(key_file), str(seed_for(scenario, number))]
    with serving(gateway, floor) as port:
        env = base_env(copy.parent, {"GATEWAY_URL": f"http://127.0.0.1:{port}"})
        command, stdout = run_bare(label, argv, copy, env, timeout, stop=stop)
    key_file.unlink(missing_ok=True)
    floor.commands.append(command)
    return command, driver_result(stdout, key)


def driver_result(stdout: str, key: str) -> dict[str, Any] | None:
    """The driver's last result line: `GRADELIB_RESULT <key> {json}` (or, from older drivers, without the key)."""
    for line in reversed(stdout.splitlines()):
        if not line.startswith(RESULT_MARKER):
            continue
        rest = line[len(RESULT_MARKER) :].strip()
        if rest.startswith(key):
            rest = rest[len(key) :].strip()
        try:
            result = json.loads(rest)
        except ValueError:
            continue
        return result if isinstance(result, dict) else None
    return None


def floor_payments(source: Path, work: Workspace, floor: Floor) -> None:
    """The driver per gateway scenario (transient, restart x2, outage up to x3, slow), then the tests."""
    copy = work.copy("transient")
    _, result = _client(floor, "transient", copy, Gateway("transient"), SCENARIO_TIMEOUT, scenario="transient")
    if result is not None and result.get("outcome") in ("resolved", "rejected"):
        gateway = Gateway("restart")
        copy = work.copy("restart")
        _client(floor, "restart: killed at first request", copy, gateway, SCENARIO_TIMEOUT, at_first_request=True,
                scenario="restart")  # fmt: skip
        _client(floor, "restart: second run", copy, gateway, SCENARIO_TIMEOUT, scenario="restart", number=1)
        _client(floor, "orders", work.copy("orders"), Gateway("orders"), SCENARIO_TIMEOUT, scenario="orders")
        gateway = Gateway("outage")
        copy = work.copy("outage")
        command, result = _client(floor, "outage #1", copy, gateway, SCENARIO_TIMEOUT, scenario="outage")
        requests = len(gateway.requests)
        if result is not None and requests >= 3 and command.seconds <= OUTAGE_REPEAT_UNDER_SECONDS:
            for number in range(2, OUTAGE_RUNS + 1):
                _client(floor, f"outage #{number}", work.copy("outage"), Gateway("outage"), SCENARIO_TIMEOUT,
                        scenario="outage")  # fmt: skip
        _client(floor, "slow", work.copy("slow"), Gateway("slow"), SLOW_TIMEOUT, scenario="slow")
    found = find_tests(source)
    if found is None:
        return
    binary = shutil.which(found[1][0], path=PATH)
    if binary is None:
        return
    node = shutil.which("node", path=PATH) or "node"
    stub_files = [str(takehome_data(DRIVER_FOLDER).joinpath(*name)) for name in ((WITH_STUB,), HANDOUT_STUB)]

    def bare_tests(argv: Sequence[str], copy: Path, env: Mapping[str, str], stub: bool) -> RunResult:
        # As the kit runs a suite (clientruns._test_run): nothing of the kit's listening and no GATEWAY_URL;
        # with `stub`, the handout's own stub on its port, started by the same script.
        if stub:
            argv = [node, *stub_files, str(GATEWAY_PORT), "--", *argv]
        errors: list[str] = []
        full = base_env(copy.parent, env)
        command, out = run_bare(
            f"tests: {copy.parent.name}", own_loopback(argv), copy, full, TEST_TIMEOUT, stderr=errors
        )
        floor.commands.append(command)
        return _as_run_result(argv, copy, command, out, "".join(errors))

    run_suites(source, binary, work.copy, bare_tests)  # the kit's own choice of variants, each run bare


def _as_run_result(argv: Sequence[str], copy: Path, command: Command, out: str, err: str) -> RunResult:
    """A bare command in the shape the kit's test reading expects."""
    return RunResult(
        argv=tuple(argv), cwd=str(copy), exit_code=command.exit_code, timed_out=False, stopped=command.stopped,
        output_limit_hit=False, duration=command.seconds, stdout=out, stderr=err, stdout_bytes=len(out),
        stderr_bytes=len(err), connections=(), dns_names=(), opened=(), isolation=Isolation("none", "bare"),
        traced=False,
    )  # fmt: skip


def floor_one(path: str) -> dict[str, Any]:
    """Every bare command of one submission, timed (picklable in and out, for a process pool)."""
    source = Path(path)
    takehome = takehomes.detect(source) or "unknown"
    floor = Floor(source.name, takehome)
    global _environment
    _environment = prepare(source)  # installed before the clock starts, as the kit installs before its runs
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gradelib-floor-") as tmp:
        work = Workspace(source, Path(tmp))
        if takehome == "replay":
            floor_replay(source, work, floor)
        elif takehome == "payments":
            floor_payments(source, work, floor)
    floor.wall_seconds = time.perf_counter() - started
    return floor.to_dict()


# -- the seed's manual identical check ----------------------------------------------------------

SEED_CHECK = (
    'bash run.sh replay && cp out/answers.json "$FIRST" && bash run.sh replay && diff "$FIRST" out/answers.json'
)


def seed_identical(path: str) -> dict[str, Any]:
    """The seed's check, bare: replay, keep a copy of the answers, replay again, diff."""
    with tempfile.TemporaryDirectory(prefix="gradelib-seed-") as tmp:
        copy = Path(tmp) / "submission"
        shutil.copytree(path, copy, symlinks=True)
        env = base_env(Path(tmp), {"FIRST": str(Path(tmp) / "first.json")})
        command, _ = run_bare("seed identical", ["bash", "-c", SEED_CHECK], copy, env, 2 * REPLAY_TIMEOUT)
    return {"seconds": command.seconds, "identical": command.exit_code == 0, "exit_code": command.exit_code}
