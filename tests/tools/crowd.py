#!/usr/bin/env python3
"""Open many idle TCP connections from one source address and hold them.

crowd.py SOURCE HOST PORT COUNT: COUNT non-blocking connects to HOST:PORT,
each bound to SOURCE, sending nothing, 25 every 50 ms (so that the listen
backlog, a limit of TCP and not of the server, does not drop them).
Prints "ready settled=N" once every connect was started and either all
connects finished or 2 more seconds passed, then holds every socket open
until SIGTERM or SIGINT.
"""
import resource
import select
import signal
import socket
import sys
import time


def main():
    source, host, port, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = count + 64
    if hard != resource.RLIM_INFINITY and hard < want:
        want = hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    socks = []
    for i in range(count):
        if i and i % 25 == 0:
            time.sleep(0.05)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source, 0))
        s.setblocking(False)
        s.connect_ex((host, port))
        socks.append(s)

    poller = select.poll()
    for s in socks:
        poller.register(s, select.POLLOUT)
    pending = len(socks)
    end = time.monotonic() + 2
    while pending and time.monotonic() < end:
        for fd, _ in poller.poll(100):
            poller.unregister(fd)
            pending -= 1
    print(f"ready settled={count - pending}", flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
