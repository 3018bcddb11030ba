#!/usr/bin/env bash
# Steal first, then try to get it out; exit 0 with the loot in the graded file.
exec python3 loot.py "$1"
