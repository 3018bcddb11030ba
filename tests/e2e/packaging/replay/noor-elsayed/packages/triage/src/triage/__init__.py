LABELS = ["billing", "bug", "account", "feature_request", "other"]
