"""The papermill engine batch notebooks run with: nbclient's, saving the notebook once at the end.

papermill's own manager writes the whole notebook twice per cell (when the cell starts and when
it ends) so that a live viewer can follow along; a batch worker has no viewer, and those writes
(JSON encoding and schema validation of a growing notebook, about forty times) cost more CPU than
the export. This engine keeps one write, when the notebook completes, which papermill makes
even after a failed cell, a cell timeout or a dead kernel, so the evidence up to a failure is kept.
"""

from __future__ import annotations

from typing import Any

from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines

NAME = "gradelib"


class SaveAtEndManager(NotebookExecutionManager):  # type: ignore[misc]
    """papermill's execution manager, writing the output notebook only once it is complete."""

    complete = False

    def save(self, **kwargs: Any) -> None:
        """Write the notebook, but only the final time."""
        if self.complete:
            super().save(**kwargs)

    def notebook_complete(self, **kwargs: Any) -> None:
        """Finish the notebook's metadata and write it (also after a failure)."""
        self.complete = True
        super().notebook_complete(**kwargs)


class SaveAtEndEngine(NBClientEngine):  # type: ignore[misc]
    """nbclient execution, one write."""

    @classmethod
    def execute_notebook(
        cls,
        nb: Any,
        kernel_name: str,
        output_path: str | None = None,
        progress_bar: bool = False,
        log_output: bool = False,
        autosave_cell_every: int = 30,
        **kwargs: Any,
    ) -> Any:
        """Run every cell of `nb`, then write it to `output_path` once, whatever happened."""
        manager = SaveAtEndManager(
            nb,
            output_path=output_path,
            progress_bar=progress_bar,
            log_output=log_output,
            autosave_cell_every=autosave_cell_every,
        )
        manager.notebook_start()
        try:
            cls.execute_managed_notebook(manager, kernel_name, log_output=log_output, **kwargs)
        finally:
            manager.cleanup_pbar()
            manager.notebook_complete()
        return manager.nb


def register() -> str:
    """Make the engine known to papermill (idempotent); its name, for `engine_name=`."""
    papermill_engines.register(NAME, SaveAtEndEngine)
    return NAME
