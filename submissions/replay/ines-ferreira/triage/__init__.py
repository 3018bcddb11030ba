"""Support-ticket triage with a record/replay boundary around the model call."""
