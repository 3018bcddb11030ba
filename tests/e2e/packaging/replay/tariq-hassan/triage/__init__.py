"""Triage support tickets with a chat model; replay recorded answers offline."""
