#!/usr/bin/env bash
# Gigabytes of output, as fast as the pipe takes it.
head -c 8G /dev/zero | tr '\0' 'A'
