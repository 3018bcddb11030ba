"""Ticket triage: one LLM call per ticket, recorded once, replayed offline."""

__version__ = "0.1.0"
