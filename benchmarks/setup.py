"""What setting a submission up with its own tool costs: the kit's sandboxed setup, cold and warm, against
the same tool run bare on the host.

    .venv/bin/python benchmarks/setup.py
    .venv/bin/python benchmarks/setup.py --keep /tmp/setup-bench
    .venv/bin/python benchmarks/setup.py --smoke     # one small setup (a PEP 723 script, uv): does it run?

The cohort is every packaging sample that declares something or has a setup step of its own
(`tests/e2e/packaging/` and `tests/e2e/setups/`): each is set up by the real tools of the kit's table (npm,
yarn, yarn berry with node-modules or Plug'n'Play, pnpm, bun, Hatch, Poetry, PDM, Pipenv, nox, tox, flit,
uv: its requirements, `[project]`, `setup.py` and workspaces too), then by its own setup step where it has
one (`make setup`, `just setup`, `npm run build`, `deno install`). The tools are provisioned first (the tool
table is cached once per machine, so it is not part of a setup's cost). Each submission is first set
up bare once, untimed: the registries (and any caching proxy between this machine and them) have
then served its packages once, so neither timed run pays for the other's first fetch. Then:
- cold: `prepare` with an empty environment cache: the setup in the sandbox, through the registry
  proxy, plus moving what it made into the cache;
- bare: the same commands of the same tools in a plain copy on the host, with the same settings
  and an empty download cache of its own, no sandbox and no proxy (the tools' own time), the
  submission's own setup step after them in the same copy;
- warm: `prepare` again (the environment is in the cache).
The target: cold at most the tool's own time plus 20 %, warm within benchmarks/deps.py's warm target.
The last line reads `setups of N: cold/bare ratio R (target 1.20), warm W s per submission`.

It starts the candidates' package managers outside the sandbox for the bare runs (lifecycle
scripts off, as in the kit); only run it on the repository's own samples, which is all it uses.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import kitpython

kitpython.ensure_kit()  # re-executes with the repository's venv when needed

from gradelib.environment import (  # noqa: E402
    InstallSettings,
    nodeinstall,
    npm,
    ownrun,
    ownsetup,
    prepare,
    pyinstall,
    read_declaration,
    toolpin,
    tools,
)
from gradelib.environment.declarationrecords import Reader  # noqa: E402
from gradelib.environment.nodesetup import WORKSPACE_FILES  # noqa: E402
from gradelib.environment.nodesetup import provision as provision_node  # noqa: E402
from gradelib.sandbox.mounts import STABLE_ENV, STABLE_SUBMISSION  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (ROOT / "tests" / "e2e" / "packaging", ROOT / "tests" / "e2e" / "setups")
COLD_TARGET = 1.20  # the kit's cold setup / the tool's own time
WARM_TARGET = 0.5  # seconds per submission (benchmarks/deps.py)
SMOKE_SAMPLE = "pep723-script"  # --smoke: this one setup (one small package), its figures meaning nothing
# The last line scripts read (tests/e2e/test_benchmark_e2e.py checks that the smoke run prints it).
LAST_LINE = r"setups of \d+: cold/bare ratio [\d.]+ \(target [\d.]+\), warm [\d.]+ s per submission"


def set_up_by_a_tool() -> list[Path]:
    """The samples that declare something to set up, or have a setup step of their own (every one is set up
    by real tools)."""
    packaging, setups = FOLDERS
    candidates = [p for takehome in packaging.iterdir() if takehome.is_dir() for p in takehome.iterdir()]
    candidates += list(setups.iterdir())
    found = []
    for path in sorted(p for p in candidates if p.is_dir()):
        declaration = read_declaration(path)
        if declaration.python or declaration.node or own_steps(path):
            found.append(path)
    return found


def own_steps(path: Path) -> list[ownsetup.Step]:
    """The submission's own setup steps, as the kit runs them after the tools' setup."""
    reader = Reader(path)
    table_steps, _env = ownsetup.table_steps(reader, npm.DEFAULT_NPM_REGISTRY)
    return [*table_steps, *ownsetup.steps(reader)]


def bare_command(
    path: Path, settings: InstallSettings, scratch: Path, copy: Path
) -> list[tuple[list[str], dict[str, str]]]:
    """The tools' own commands and settings for `path`, then its own setup steps, with the sandbox's fixed
    paths made host folders (the copy the steps run in is `copy`)."""
    declaration = read_declaration(path)
    found: list[tuple[list[str], dict[str, str]]] = []
    if declaration.python or declaration.node:
        commands, env = _tool_commands(path, settings, scratch)
        found += [(argv, env) for argv in commands]
    steps = own_steps(path)
    if steps:
        named = [tools.provision(step.tool, settings) for step in steps if step.tool and step.tool in tools.TOOLS]
        base = dict(os.environ) | {"PIP_ONLY_BINARY": ":all:", "npm_config_ignore_scripts": "true"}
        base["PATH"] = ":".join([*(str(t.bin_dir) for t in named), str(tools.provision("uv", settings).bin_dir),
                                 base["PATH"]])  # fmt: skip
        for step in steps:
            env = base | {k: v.replace(STABLE_SUBMISSION, str(copy)) for k, v in step.env.items()}
            found.append((list(step.argv), env | {k: v for k, v in ownrun.ONLINE.items() if k.startswith("PIP_")}))
    return found


def _tool_commands(path: Path, settings: InstallSettings, scratch: Path) -> tuple[list[list[str]], dict[str, str]]:
    """The setting-up tool's own commands and settings for `path`."""
    declaration = read_declaration(path)
    env = dict(os.environ)
    if declaration.python and not declaration.python.setup:  # requirements and [project]: the kit's uv
        python = declaration.python
        inputs = pyinstall.write_inputs(scratch, python)  # as the kit writes them (hashes too)
        provisioned = tools.provision("uv", settings)
        env |= {"UV_CACHE_DIR": str(scratch / "uv-cache"), "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}
        # the step that installs the project's own dependencies names them from what the build made: left out
        commands = [a for a in pyinstall.commands(python, settings, scratch / "venv", inputs) if isinstance(a, list)]
    elif declaration.python and declaration.python.setup:
        setup = declaration.python.setup
        version = toolpin.choose(setup.tool, setup.requires, settings).version  # the project's own pin, as the kit
        provisioned = tools.provision(setup.tool, settings, version)
        theirs = setup.env(settings, provisioned.root)
        env |= {k: v.replace(STABLE_ENV, str(scratch / "env")) for k, v in theirs.items()}
        commands = [[word.replace(STABLE_ENV, str(scratch / "env")) for word in a] for a in setup.commands(settings)]
        for other in setup.row.also:  # other tools its commands use (flit's: uv), as the kit puts them on PATH
            env["PATH"] = f"{tools.provision(other, settings).bin_dir}:{env['PATH']}"
    else:
        node = nodeinstall.setup_of(declaration.node)  # type: ignore[arg-type]
        node, provisioned, _ = provision_node(node, settings)
        registry = npm.registry(settings)
        theirs = {k: v for k, v in node.env(registry).items() if "PROXY" not in k}  # bare: no kit proxy
        env |= theirs | {"YARN_CACHE_FOLDER": str(scratch / "store"), "npm_config_cache": str(scratch / "store")}
        commands = [node.argv(registry)]
    env["PATH"] = f"{provisioned.bin_dir}:{env['PATH']}"
    return commands, env


def bare_seconds(path: Path, settings: InstallSettings, work: Path) -> float:
    """The tool's own time on a plain copy of `path`, with an empty download cache of its own."""
    copy = work / "bare" / path.name
    shutil.rmtree(copy.parent, ignore_errors=True)
    node = read_declaration(path).node
    if node is not None and not own_steps(path):  # as the kit does: package.json, the lockfile, the members
        copy.mkdir(parents=True)
        for name in ("package.json", nodeinstall.setup_of(node).lockfile, *WORKSPACE_FILES):
            if name and (path / name).is_file():
                shutil.copy2(path / name, copy / name)
        for member in node.members:
            shutil.copytree(path / member, copy / member, ignore=shutil.ignore_patterns("node_modules"))
    else:
        shutil.copytree(path, copy, ignore=shutil.ignore_patterns("node_modules", ".venv"))
    scratch = work / "bare-scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    steps = bare_command(path, settings, scratch, copy)
    started = time.perf_counter()
    for argv, env in steps:
        env = env | {"HOME": str(scratch / "home"), "XDG_CACHE_HOME": str(scratch / "cache")}
        done = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, check=False, timeout=900)
        if done.returncode != 0:
            raise SystemExit(f"{path.name}: {' '.join(argv)} failed bare: {(done.stdout + done.stderr)[-800:]}")
    return time.perf_counter() - started


def run(work: Path, smoke: bool = False) -> str:
    """Measure and return the printed report (`smoke`: the one sample SMOKE_SAMPLE)."""
    samples = [path for path in set_up_by_a_tool() if path.name == SMOKE_SAMPLE or not smoke]
    if not samples:
        raise SystemExit("no sample is set up by a tool")
    tools_cache = work / "tools-cache"
    rows, cold, bare, warm = [], [], [], []
    by_tool: dict[str, list[tuple[float, float]]] = {}
    for path in samples:
        settings = InstallSettings(cache_dir=tools_cache)
        bare_seconds(path, settings, work)  # untimed: provisions the tool, and the network has served it once
        bare_s = bare_seconds(path, settings, work)
        envs = tools_cache / "envs"
        shutil.rmtree(envs, ignore_errors=True)  # a cold environment cache; the tools stay
        started = time.perf_counter()
        env = prepare(path, settings)
        cold_s = time.perf_counter() - started
        if env.error:
            raise SystemExit(f"{path.name}: {env.error}")
        started = time.perf_counter()
        prepare(path, settings)
        warm_s = time.perf_counter() - started
        tool = next((i.setup for i in (env.python, env.node) if i is not None and i.setup), None)
        tool = tool or {"tool": "own step", "version": "-"}  # a setup step of its own alone (make setup)
        rows.append(
            f"{path.name:<18} {tool['tool']:<11} {tool['version']:<9} bare {bare_s:6.2f} s  cold {cold_s:6.2f} s"
            f"  ratio {cold_s / bare_s:5.2f}  warm {warm_s:.4f} s"
        )
        by_tool.setdefault(tool["tool"], []).append((cold_s, bare_s))
        cold.append(cold_s)
        bare.append(bare_s)
        warm.append(warm_s)
    ratio = sum(cold) / sum(bare)
    warm_mean = statistics.fmean(warm)
    tools_line = ", ".join(
        f"{name} {sum(c for c, _ in runs) / sum(b for _, b in runs):.2f} ({len(runs)})"
        for name, runs in sorted(by_tool.items())
    )
    return "\n".join([
        *rows,
        f"cold/bare by tool (setups): {tools_line}",
        f"cold: {sum(cold):.1f} s for {len(samples)} setups, bare tools {sum(bare):.1f} s:"
        f" {'met' if ratio <= COLD_TARGET else 'NOT met'} (target {COLD_TARGET:.2f})",
        f"warm: {warm_mean:.4f} s per submission: {'met' if warm_mean <= WARM_TARGET else 'NOT met'}",
        f"setups of {len(samples)}: cold/bare ratio {ratio:.2f} (target {COLD_TARGET:.2f}),"
        f" warm {warm_mean:.4f} s per submission",
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, measure, print."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the copies and caches in this folder")
    parser.add_argument(
        "--smoke", action="store_true", help=f"{SMOKE_SAMPLE} alone: does the benchmark run? (figures mean nothing)"
    )
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        print(run(args.keep, args.smoke))
    else:
        with tempfile.TemporaryDirectory(prefix="gradelib-setup-") as tmp:
            print(run(Path(tmp), args.smoke))
    return 0


if __name__ == "__main__":
    sys.exit(main())
