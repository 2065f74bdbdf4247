#!/usr/bin/env python3
"""Count what crosses the loopback interface for one TCP port.

sniff.py PORT PATTERN: from now until SIGTERM or SIGINT, count the TCP
packets on lo to or from PORT, their payload bytes, and the packets whose
payload holds PATTERN (bytes, given as text); then print
"packets=N bytes=B matches=M" and exit.  Prints "ready" once capturing.
Each packet on lo is seen twice (sent and received): only the counts'
being zero or not matter.
"""
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003


def tcp_payload(frame):
    """(source port, destination port, payload) of an IPv4 or IPv6 TCP frame."""
    ethertype = struct.unpack_from("!H", frame, 12)[0]
    if ethertype == 0x0800:
        ihl = (frame[14] & 0x0F) * 4
        if frame[23] != 6:
            return None
        tcp = 14 + ihl
    elif ethertype == 0x86DD:
        if frame[20] != 6:
            return None
        tcp = 14 + 40
    else:
        return None
    sport, dport = struct.unpack_from("!HH", frame, tcp)
    off = (frame[tcp + 12] >> 4) * 4
    return sport, dport, frame[tcp + off:]


def main():
    port = int(sys.argv[1])
    pattern = sys.argv[2].encode()
    counts = {"packets": 0, "bytes": 0, "matches": 0}
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind(("lo", 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)

    def done(_sig, _frame):
        print("packets={packets} bytes={bytes} matches={matches}".format(**counts),
              flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, done)
    signal.signal(signal.SIGINT, done)
    print("ready", flush=True)
    while True:
        frame = s.recv(70000)
        parsed = tcp_payload(frame)
        if not parsed or port not in parsed[:2]:
            continue
        counts["packets"] += 1
        counts["bytes"] += len(parsed[2])
        if pattern in parsed[2]:
            counts["matches"] += 1


if __name__ == "__main__":
    main()
