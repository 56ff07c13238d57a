"""A child process that holds many idle, authenticated connections.

Usage: python3 idle_horde.py PORT COUNT SOURCE_IP USER PASSWORD

Opens COUNT connections from SOURCE_IP (a 127.0.0.x address, so several
processes can spread over source addresses and stay under the per-process
file-descriptor limit), completes the real handshake on each, prints
"READY <n>" and waits for a line on stdin. Then it pings a sample of its
connections, prints "ALIVE <k> OF <m>" and exits. Every step is bounded in time.
"""

import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawproto import RawConnection  # noqa: E402

COM_PING = 0x0E
DEADLINE_S = 180


def main() -> int:
    port, count, src, user, password = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    start = time.monotonic()
    conns = []
    for _ in range(count):
        if time.monotonic() - start > DEADLINE_S:
            break
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((src, 0))
        s.settimeout(30)
        s.connect(("127.0.0.1", port))
        c = RawConnection(s, False, timeout=30)
        c.handshake(user, password)
        conns.append(c)
    print(f"READY {len(conns)}", flush=True)
    sys.stdin.readline()
    sample = conns[:: max(1, len(conns) // 50)]
    alive = 0
    for c in sample:
        try:
            c.command(COM_PING)
            if c.read_packet()[:1] == b"\x00":
                alive += 1
        except Exception:
            pass
    print(f"ALIVE {alive} OF {len(sample)}", flush=True)
    for c in conns:
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
