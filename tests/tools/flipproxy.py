#!/usr/bin/env python3
"""A TCP proxy on loopback that flips one bit each way, once.

flipproxy.py PORT TARGET_PORT AFTER: takes connections on 127.0.0.1:PORT
and relays each to 127.0.0.1:TARGET_PORT.  The first time a connection's
client-to-server bytes pass AFTER, one random bit of the data relayed is
flipped; likewise, separately, server-to-client.  Later connections pass
untouched.  Prints "ready", a line per flip, and on SIGTERM or SIGINT
"connections=N flips=F".
"""
import random
import signal
import socket
import sys
import threading

lock = threading.Lock()
state = {"connections": 0, "flips": 0, "done": set()}


def relay(src, dst, direction, after):
    seen = 0
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            with lock:
                flip = direction not in state["done"] and seen + len(data) > after
                if flip:
                    state["done"].add(direction)
                    state["flips"] += 1
            if flip:
                buf = bytearray(data)
                i = max(0, after - seen) + random.randrange(len(data) - max(0, after - seen))
                bit = random.randrange(8)
                buf[i] ^= 1 << bit
                data = bytes(buf)
                print(f"flipped {direction} bit {bit} of byte {seen + i}", flush=True)
            seen += len(data)
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    port, target, after = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    random.seed(port)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(16)

    def done(_sig, _frame):
        print("connections={connections} flips={flips}".format(**state), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, done)
    signal.signal(signal.SIGINT, done)
    print("ready", flush=True)
    while True:
        client, _ = ls.accept()
        server = socket.create_connection(("127.0.0.1", target))
        with lock:
            state["connections"] += 1
        for a, b, d in ((client, server, "c2s"), (server, client, "s2c")):
            threading.Thread(target=relay, args=(a, b, d, after), daemon=True).start()


if __name__ == "__main__":
    main()
