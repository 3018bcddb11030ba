"""Review: the scoring rules, the scoring panel and its read-only table, a reviewer's queue."""
