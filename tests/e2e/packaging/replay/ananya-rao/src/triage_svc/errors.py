class TriageError(RuntimeError):
    """Anything that should stop a run with a message and exit 1."""
