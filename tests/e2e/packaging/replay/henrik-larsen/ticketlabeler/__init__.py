"""ticketlabeler: triage support tickets with an LLM, with recorded cassettes for offline replay."""

LABELS = ["billing", "bug", "account", "feature_request", "other"]
