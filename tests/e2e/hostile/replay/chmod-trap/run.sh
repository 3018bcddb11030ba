#!/usr/bin/env bash
# The kit cannot delete entries of a read-only folder, so its cleanup chmods them first.
. ./targets.env
mkdir trap
ln -s "$VICTIM" trap/link
chmod 500 trap
exit 1
