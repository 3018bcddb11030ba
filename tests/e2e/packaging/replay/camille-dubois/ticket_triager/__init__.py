LABELS = frozenset({"billing", "bug", "account", "feature_request", "other"})
LABEL_ORDER = ("billing", "bug", "account", "feature_request", "other")
