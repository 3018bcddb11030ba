#!/usr/bin/env bash
# Never ends: a busy loop, after starting a detached grandchild that sleeps past any timeout.
( setsid bash -c '( exec -a gradelib-hostile-hang-sleeper sleep 600 ) &' & )
while :; do :; done
