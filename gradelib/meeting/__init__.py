"""The calibration meeting: its agenda, resolutions, clarifications, decisions, their effect, and the lead's panel."""
