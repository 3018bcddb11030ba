"""The setup phase's proxy with the real registries: a sandboxed npm and Python reach PyPI and the npm
registry through it, and nothing else (these tests reach PyPI and the npm registry, as CI does)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.sandbox import Limits, Sandbox
from gradelib.sandbox.registryproxy import RegistryProxy, registry_hosts

pytestmark = pytest.mark.e2e

LIMITS = Limits(wall_seconds=120, cpu_seconds=120)
FETCH = """
import sys, urllib.request
for url in sys.argv[1:]:
    try:
        print(url, urllib.request.urlopen(url, timeout=30).status)
    except Exception as exc:
        print(url, "failed:", exc)
"""


def test_a_sandboxed_setup_reaches_the_registries_through_the_proxy_and_nothing_else(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed: ./dev setup installs it")
    sub = write_tree(tmp_path / "sub", {"package.json": "{}", "fetch.py": FETCH})
    proxy = RegistryProxy(registry_hosts(None, None))
    with Sandbox(sub) as box:
        npm = box.run(["npm", "view", "is-odd", "version"], box.copy("npm"), services=[proxy.service()], limits=LIMITS)
        urls = ["https://pypi.org/simple/six/", "https://example.com/", "https://api.openai.com/v1/models"]
        python = box.run(["python3", "fetch.py", *urls], box.copy("py"), services=[proxy.service()], limits=LIMITS)
        alone = box.run(["python3", "fetch.py", urls[0]], box.copy("alone"), limits=LIMITS)
    assert npm.exit_code == 0 and re.fullmatch(r"\d+\.\d+\.\d+", npm.stdout.strip()), npm.stderr
    lines = python.stdout.splitlines()
    assert lines[0] == "https://pypi.org/simple/six/ 200", python.stdout + python.stderr
    assert all("403 Forbidden" in line for line in lines[1:]), lines
    evidence = proxy.evidence()
    assert set(evidence["reached"]) == {"registry.npmjs.org:443", "pypi.org:443"}
    assert evidence["refused"] == [
        "example.com:443: not a configured registry",
        "api.openai.com:443: not a configured registry",
    ]
    assert "failed" in alone.stdout, "without the proxy the sandbox reaches nothing"
