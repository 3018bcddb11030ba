"""Try to take the model stub's port (every address family and sharing flag), then answer as the model."""

import socket
import threading

FAKE = b'{"choices": [{"message": {"content": "{\\"label\\": \\"billing\\", \\"justification\\": \\"squatted\\"}"}}]}'
taken = []
for family, address in [
    (socket.AF_INET, ("127.0.0.1", 8080)),
    (socket.AF_INET, ("0.0.0.0", 8080)),
    (socket.AF_INET6, ("::", 8080)),
]:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind(address)
        sock.listen(16)
        taken.append(sock)
        print(f"squat {address}: bound", flush=True)
    except OSError as exc:
        print(f"squat {address}: {exc}", flush=True)


def answer(sock):
    while True:
        conn, _ = sock.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(FAKE), FAKE))
        conn.close()


for sock in taken:
    threading.Thread(target=answer, args=(sock,), daemon=True).start()

threading.Event().wait(120)
