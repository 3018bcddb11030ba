"""Async LLM triage of support tickets, recorded to cassettes and replayed offline."""

__version__ = "0.4.1"

LABELS = ("billing", "bug", "account", "feature_request", "other")
