"""Declared dependencies: read as data, installed by the kit's own installers, cached, mounted read-only."""

from __future__ import annotations

from gradelib.environment.declaration import Declaration, read_declaration
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.prepared import Environment, Installed, prepare

__all__ = ["Declaration", "Environment", "InstallSettings", "Installed", "prepare", "read_declaration"]
