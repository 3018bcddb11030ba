#!/usr/bin/env bash
# Broken JSON, the same bytes every time.
mkdir -p out
printf '[{"id": "T-001", "label": "billing", "justification": "cut off' > out/answers.json
