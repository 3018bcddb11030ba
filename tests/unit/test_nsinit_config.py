"""nsinit.InitConfig: the typed configuration the sandbox sends its child, through JSON and back."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gradelib.sandbox import nsinit

LIMITS = nsinit.RunLimits(cpu_seconds=10, memory_bytes=1 << 30, processes=64, file_bytes=1 << 20, open_files=256)


def _config(**changes: object) -> nsinit.InitConfig:
    base = nsinit.InitConfig(
        isolate=True,
        cwd="/work/copy",
        argv=("/bin/sh", "-c", "echo hi"),
        env={"PATH": "/usr/bin", "HOME": "/work/run/home"},
        limits=LIMITS,
        as_root=False,
        listen=(nsinit.Listener("model", 8080), nsinit.Listener("dns", 53, "udp")),
        resolv_conf="/work/run/resolv.conf",
        root_dir="/work/run/root",
        writable=("/work/copy", "/work/run"),
        read_only=("/cache/env",),
        tmp=None,
        traced=True,
        umask=0o077,
        cpus=(0, 1),
        hostname="sandbox",
    )
    return nsinit.InitConfig(**{**base.__dict__, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(_config(), id="isolated"),
        pytest.param(_config(isolate=False, listen=(), cpus=None, hostname=None, resolv_conf=None), id="not-isolated"),
        pytest.param(_config(tmp="/work/run/tmp"), id="capped-tmp"),
    ],
)
def test_config_survives_json(config: nsinit.InitConfig) -> None:
    assert nsinit.InitConfig.from_json(config.to_json()) == config


def test_json_keeps_the_keys_the_child_reads() -> None:
    data = json.loads(_config().to_json())
    assert data["listen"][1] == {"name": "dns", "port": 53, "protocol": "udp", "address": "127.0.0.1"}
    assert data["limits"]["cpu_seconds"] == 10 and data["argv"][0] == "/bin/sh" and data["cpus"] == [0, 1]


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda d: d.update(hostnmae="x"), id="unknown-key"),
        pytest.param(lambda d: d.pop("cwd"), id="missing-key"),
        pytest.param(lambda d: d["limits"].update(cpu=1), id="unknown-limit"),
        pytest.param(lambda d: d["listen"][0].update(prot="udp"), id="unknown-listener-key"),
    ],
)
def test_a_wrong_key_is_a_type_error(edit: object) -> None:
    data = json.loads(_config().to_json())
    edit(data)  # type: ignore[operator]
    with pytest.raises(TypeError):
        nsinit.InitConfig.from_json(json.dumps(data))


def test_the_child_imports_nothing_but_the_standard_library() -> None:
    """nsinit runs as `python -I nsinit.py`: its module must load with no gradelib on the path."""
    before = "before = set(sys.modules)"
    after = "print(sorted(m for m in set(sys.modules) - before if 'gradelib' in m))"
    code = f"import runpy, sys; {before}; runpy.run_path({nsinit.__file__!r}); {after}"
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True, timeout=30)
    assert out.stdout.strip() == "[]"


def test_a_kit_server_listens_on_loopback_only() -> None:
    config = _config(listen=(nsinit.Listener("passage", 443, "tcp", "10.0.0.1"),))
    with pytest.raises(ValueError, match="not a loopback address"):
        nsinit.bind_listeners(config)
