"""npm, yarn and pnpm projects set up by npm, yarn and pnpm themselves, in the sandbox, through the registry proxy;
then run offline with the same tools on PATH (these tests reach the npm registry, as CI does).

The lockfiles in `setups/` were written by the real tools: yarn 1.22.22 (an `npm:` alias and a
`resolutions` field) and pnpm 9.15.9 (`pnpm.overrides`, `packageManager: pnpm@9.15.9`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.prepared import Environment, prepare
from gradelib.environment.tools import TOOLS
from gradelib.sandbox import Limits, Sandbox

pytestmark = pytest.mark.e2e

SETUPS = Path(__file__).parent / "setups"
PACKAGING = Path(__file__).parent / "packaging" / "payments"
CHECK = (
    "const v = (n) => require(n + '/package.json').version;"
    "console.log(['react-is-18', 'is-odd', 'is-number'].map((n) => { try { return n + ' ' + v(n) }"
    " catch { return n + ' missing' } }).join(', '))"
)


def _submission(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "sub"
    shutil.copytree(SETUPS / name, root)
    (root / "check.cjs").write_text(CHECK)
    return root


def _offline_run(root: Path, env: Environment, argv: list[str]) -> str:
    with Sandbox(root, mounts=env.mounts()) as box:
        result = box.run(argv, box.copy("run"), limits=Limits(wall_seconds=60))
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def test_a_yarn_lock_with_an_alias_and_resolutions_is_set_up_by_yarn(tmp_path: Path) -> None:
    root = _submission(tmp_path, "yarn-alias")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["version"], setup["lockfile"]) == ("yarn", "1.22.22", "yarn.lock")
    assert setup["command"].startswith("yarn install --frozen-lockfile --ignore-scripts")
    assert setup["network"]["refused"] == [] and set(setup["network"]["reached"]) <= {
        "registry.yarnpkg.com:443", "registry.npmjs.org:443",
    }  # fmt: skip
    assert "set up by yarn 1.22.22" in env.summary()
    assert _offline_run(root, env, ["node", "check.cjs"]) == "react-is-18 18.3.1, is-odd 3.0.1, is-number 6.0.0"
    assert _offline_run(root, env, ["yarn", "--version"]) == "1.22.22", "the real yarn is on PATH in the runs"
    again = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert again.node is not None and again.node.cache_hit and again.node.setup == env.node.setup  # type: ignore[union-attr]


def test_a_pnpm_lock_is_set_up_by_the_pnpm_package_manager_names(tmp_path: Path) -> None:
    root = _submission(tmp_path, "pnpm-overrides")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    assert (installed["setup"]["tool"], installed["setup"]["version"]) == ("pnpm", "9.15.9")
    assert installed["setup"]["version_from"] == "packageManager"
    # is-number is overridden to 6.0.0 (is-odd asks for ^6, the override pins it); pnpm links only direct deps
    assert _offline_run(root, env, ["node", "check.cjs"]) == "react-is-18 missing, is-odd 3.0.1, is-number missing"
    assert _offline_run(root, env, ["node", "-p", "require.resolve('is-odd')"]).endswith(
        "/node_modules/.pnpm/is-odd@3.0.1/node_modules/is-odd/index.js"
    )
    assert _offline_run(root, env, ["pnpm", "--version"]) == "9.15.9"


def test_a_lockfile_entry_outside_the_registry_is_refused_by_the_proxy_and_named(tmp_path: Path) -> None:
    root = _submission(tmp_path, "yarn-alias")
    lock = (root / "yarn.lock").read_text()
    (root / "yarn.lock").write_text(
        lock.replace("https://registry.yarnpkg.com/is-odd/-/", "https://evil.example/is-odd/-/")
    )
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.node is None and env.error is not None
    assert "yarn 1.22.22 could not set the project up from yarn.lock" in env.error
    assert "evil.example:443: not a configured registry" in env.error


def test_a_berry_project_runs_its_packages_bins_through_yarn_offline(tmp_path: Path) -> None:
    """`packaging/payments/yuki-tanaka`: a yarn.lock written by yarn 4.18.1 (`nodeLinker: node-modules`);
    `yarn mocha`, as a candidate's script would call it, runs in every copy with no network."""
    root = shutil.copytree(PACKAGING / "yuki-tanaka", tmp_path / "sub")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    assert (installed["setup"]["tool"], installed["setup"]["version"]) == ("yarn-berry", "4.18.1")
    assert _offline_run(root, env, ["yarn", "--version"]) == "4.18.1"
    assert _offline_run(root, env, ["yarn", "mocha", "--version"]).startswith("11.")


def test_an_npm_lock_is_set_up_by_the_kits_npm_whose_npx_runs_offline(tmp_path: Path) -> None:
    """`packaging/payments/elena-vasquez`: a package-lock.json, and a test script of `npx --no-install mocha`."""
    root = shutil.copytree(PACKAGING / "elena-vasquez", tmp_path / "sub")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["version"], setup["lockfile"]) == ("npm", TOOLS["npm"].version, "package-lock.json")
    assert setup["command"].startswith("npm ci --ignore-scripts")
    assert setup["network"]["refused"] == [] and set(setup["network"]["reached"]) == {"registry.npmjs.org:443"}
    assert ("mocha", "11.8.0", True) in env.node.packages  # type: ignore[union-attr]
    assert _offline_run(root, env, ["npm", "--version"]) == TOOLS["npm"].version
    assert _offline_run(root, env, ["npx", "--no-install", "mocha", "--version"]) == "11.8.0"
