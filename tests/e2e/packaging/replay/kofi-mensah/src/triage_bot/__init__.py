"""triage_bot: label support tickets with an LLM, record the calls once, replay them offline."""

LABELS = ("billing", "bug", "account", "feature_request", "other")

__version__ = "0.1.0"
