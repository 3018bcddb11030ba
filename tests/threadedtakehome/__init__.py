"""A test-only take-home whose import starts a thread, as a careless plugin might.

A kernel fork server that imported it would fork with a thread's locks held, so the server refuses
to start and the batch's kernels start as fresh interpreters; the batch must say so, once. It
recognises no submission (no marker file ever exists): it is only ever imported.
"""

from __future__ import annotations

import threading
import time

from tinytakehome.grading import TinyGrading

from gradelib.takehome import TakeHome

threading.Thread(target=time.sleep, args=(3600,), daemon=True, name="careless-plugin").start()

PLUGIN = TakeHome(
    id="threaded",
    title="A plugin that starts a thread when imported",
    package="tinytakehome",
    grading=TinyGrading,
    markers=(".gradelib-never-present",),
    handout_files=(),
)
