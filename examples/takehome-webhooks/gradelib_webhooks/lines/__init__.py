"""The four `webhooks` rubric lines, one module each, in rubric order: each judges the runs it reads."""
