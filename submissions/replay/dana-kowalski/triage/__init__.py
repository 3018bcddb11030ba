"""Support-ticket triage with recorded model calls."""

LABELS = ("billing", "bug", "account", "feature_request", "other")
