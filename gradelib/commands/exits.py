"""What a script can rely on from every `gradelib` command: its exit statuses (the README's table is this one)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_GRADING_ERRORS = 1  # the batch ran to its end, and at least one submission's grading ended in error
EXIT_CANNOT_RUN = 2  # the kit could not do what was asked (argparse's own exit status for a bad command line)
EXIT_SCHEDULER_LOST = 3  # the Dask scheduler went away mid-batch: what was left is not graded
EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by SIGINT
EXIT_SIGTERM = 143  # as a shell reports a command stopped by SIGTERM
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "it did what was asked: `check` ran its checks, whatever they found (a line it could not check"
     " says so: `error`); `grade` graded every submission with every line checked, or found it up to date"),
    (EXIT_GRADING_ERRORS, "`grade` ran to its end (every other submission graded) and a submission ended in"
     " `error`: its grading failed, or the kit could not check one of its lines (graded now, or up to date"
     " from such a grading); the lines before the last name each one with its report, the last line counts"
     " them. Also `deps fetch`, `similarity add` and `similarity scan` when some of their work failed,"
     " `demo` when a score was refused, `new-takehome` when it wrote the take-home but could not install it"
     " (it prints the command that does)"),
    (EXIT_CANNOT_RUN, "the kit could not do what was asked, and said why in one line on stderr: a command line"
     " it does not understand, an unknown `GRADELIB_*` variable or value, a gradebook that is not there, a"
     " reports folder it cannot write, a submission `check` could not open"),
    (EXIT_SCHEDULER_LOST, "`grade --scheduler`: the Dask scheduler went away mid-batch; nothing is recorded for"
     " what was not graded: run the same command again"),
    (EXIT_INTERRUPTED, "stopped by Ctrl+C (SIGINT): every report written is whole; run the same command again"),
    (EXIT_SIGTERM, "stopped by SIGTERM: as Ctrl+C"),
)  # fmt: skip


def exit_codes_table() -> str:
    """The README's table of exit codes, from EXIT_CODES."""
    rows = "\n".join(f"| {code} | {meaning} |" for code, meaning in EXIT_CODES)
    return f"| exit status | when |\n|---|---|\n{rows}"
