"""The cohort: its table, agreement and calibration, charts, and the summary notebook run."""
