#!/usr/bin/env python3
"""Count what crosses the loopback interface for one TCP port.

sniff.py PORT PATTERN: from now until SIGTERM or SIGINT, count the TCP
packets on lo to or from PORT, their payload bytes, and the packets whose
payload holds PATTERN (bytes, given as text); then print
"packets=N bytes=B matches=M" and exit.  Prints "ready" once capturing.
Each packet on lo is seen twice (sent and received): only the counts'
being zero or not matter.

sniff.py PORT --dst: prints what a dst client sends to PORT in its
handshake, as another client that can watch the link would see it: a line
"hello session=HEX generation=N" for each hello and "proof=HEX" for each
auth message (its session proof), once per packet.
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


def show_dst(frame, addr, port):
    """Print a dst client's hello or auth message to PORT (received side only)."""
    parsed = tcp_payload(frame)
    if addr[2] == socket.PACKET_OUTGOING or not parsed or parsed[1] != port:
        return
    data = parsed[2]
    if len(data) >= 64 and data[:4] == b"DSTH":
        session, generation = struct.unpack_from("!QI", data, 48)
        print("hello session=%016x generation=%d" % (session, generation), flush=True)
    elif len(data) >= 72 and data[:4] == b"DSTA":
        print("proof=" + data[8:40].hex(), flush=True)


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
    while pattern == b"--dst":
        frame, addr = s.recvfrom(70000)
        show_dst(frame, addr, port)
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
