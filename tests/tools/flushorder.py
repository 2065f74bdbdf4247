#!/usr/bin/env python3
"""Check the order of flushes and claims in an ftrace of the block layer.

Usage: flushorder.py TRACE CHECK FROM TO ARG...

TRACE is /sys/kernel/tracing/trace as saved after a run with trace_clock
counter (one order for the events of all CPUs, "times" being its counts:
a clock's ties would leave open the order of a write's completion and
the flush issued after it) and these events on: block:block_rq_issue,
block:block_rq_complete (of blk-mq devices: loop), a kprobe event named legs_changed, and marks
written to trace_marker.  FROM and TO are marks: only events between them
count.  Devices are MAJOR,MINOR as the events print them.

A leg's data write is covered at time T when a flush was issued to the leg
after the write completed, and completed before T: the write is then on
the leg's media at T.

  sweep FROM TO BITMAP HELD LEG...
      every write issued to BITMAP is preceded by a cover of every LEG's
      writes; HELD (one of the LEGs) saw a flush complete after FROM and
      before its first data write was issued (the write was held across a
      sweep), and BITMAP was written after that write completed.
  insync FROM TO LEG...
      at every legs_changed hit every LEG's writes are covered, and a hit
      came after the last write.
  clean FROM TO BITMAP LEG...
      every write to BITMAP is preceded by a cover of every LEG's writes,
      and the last one by a flush of every LEG issued after FROM and
      completed.

Exits 1 with the reason on the first violation, 2 on a trace it cannot use.
"""
import re
import sys

LINE = re.compile(r'\s(\d+(?:\.\d+)?):\s+(\w+):\s(.*)$')
SECTORS = re.compile(r'\s(\d+) \+ (\d+) ')


def load(path):
    """The events: (time, kind, dev, rwbs, sectors, error or text)."""
    events = []
    lost = False
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = re.match(r'# entries-in-buffer/entries-written: (\d+)/(\d+)',
                         line)
            if m and m.group(1) != m.group(2):
                lost = True
            if 'LOST' in line and 'EVENTS' in line:
                lost = True
            m = LINE.search(line)
            if not m:
                continue
            t, name, body = float(m.group(1)), m.group(2), m.group(3)
            if name in ('block_rq_issue', 'block_rq_complete'):
                f_ = body.split()
                s = SECTORS.search(body + ' ')
                nr = int(s.group(2)) if s else 0
                err = 0
                if name == 'block_rq_complete':
                    e = re.search(r'\[(-?\d+)\]\s*$', body)
                    err = int(e.group(1)) if e else 0
                events.append((t, name[9:], f_[0], f_[1], nr, err))
            elif name == 'tracing_mark_write':
                events.append((t, 'mark', None, None, 0, body.strip()))
            elif name == 'legs_changed':
                events.append((t, 'legs_changed', None, None, 0, None))
    if lost:
        sys.exit('flushorder: the trace lost events (buffer too small)')
    return events


def between(events, first, last):
    t0 = t1 = None
    for e in events:
        if e[1] == 'mark' and e[5] == first and t0 is None:
            t0 = e[0]
        if e[1] == 'mark' and e[5] == last and t0 is not None:
            t1 = e[0]
            break
    if t0 is None or t1 is None:
        print(f'flushorder: marks {first} .. {last} not in the trace')
        sys.exit(2)
    return t0, [e for e in events if t0 < e[0] < t1]


def is_write(e):
    return e[1] == 'complete' and 'W' in e[3] and e[4] > 0


def is_flush(e, kind):
    return e[1] == kind and e[3].startswith('F') and e[4] == 0


def uncovered(ev, leg, t, since, need=False):
    """Why LEG's writes are not all on its media at T, or None.  With
    NEED, a flush issued after SINCE is needed even with no write."""
    last = since
    for e in ev:
        if e[0] < t and e[2] == leg and is_write(e):
            last = max(last, e[0])
    if last == since and not need:
        return None
    issued = None
    for e in ev:
        if e[0] >= t or e[2] != leg:
            continue
        if issued is None and is_flush(e, 'issue') and e[0] > last:
            issued = e[0]
        elif issued is not None and is_flush(e, 'complete') and e[0] > issued:
            if e[5]:
                return f'its flush at {e[0]:.0f} failed ({e[5]})'
            return None
    what = 'its write done' if last > since else 'the mark'
    if issued is None:
        return f'no flush issued to it after {what} at {last:.0f}'
    return f'its flush issued at {issued:.0f} (after {what} at ' \
        f'{last:.0f}) had not completed'


def bitmap_writes(ev, bitmap):
    return [e for e in ev if e[1] == 'issue' and e[2] == bitmap
            and 'W' in e[3] and e[4] > 0]


def violation(ev, msg):
    """Print MSG and the events of the checked span, and exit 1."""
    print(msg)
    for e in ev[-200:]:
        print(f'  {e[0]:.0f} {e[1]} {e[2] or ""} {e[3] or ""} {e[4]} '
              f'{e[5] if e[5] is not None else ""}')
    sys.exit(1)


def check_covered(ev, t, legs, since, what):
    for leg in legs:
        why = uncovered(ev, leg, t, since)
        if why:
            violation(ev, f'flushorder: {what} at {t:.0f} before leg {leg} '
                      f'was flushed: {why}')


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    events = load(sys.argv[1])
    check, first, last = sys.argv[2:5]
    args = sys.argv[5:]
    t0, ev = between(events, first, last)
    if check == 'sweep':
        bitmap, held, legs = args[0], args[1], args[2:]
        writes = [e[0] for e in ev if e[1] == 'issue' and e[2] == held
                  and 'W' in e[3] and e[4] > 0]
        if not writes:
            print(f'flushorder: no write reached {held}')
            sys.exit(2)
        if not any(is_flush(e, 'complete') and e[2] == held and
                   e[0] < writes[0] for e in ev):
            print(f'flushorder: no sweep flushed {held} while its write '
                  'was held')
            sys.exit(2)
        done = max(e[0] for e in ev if e[2] == held and is_write(e))
        bw = bitmap_writes(ev, bitmap)
        if not any(t > done for t, *_ in bw):
            print(f'flushorder: the bitmap was not written after the held '
                  f'write completed at {done:.0f}')
            sys.exit(2)
        for e in bw:
            check_covered(ev, e[0], legs, t0, 'the bitmap was written')
        print(f'flushorder: {len(bw)} bitmap writes, each after a flush of '
              'every leg that covers its writes (the held write done at '
              f'{done:.0f})')
    elif check == 'insync':
        legs = args
        hits = [e[0] for e in ev if e[1] == 'legs_changed']
        done = max((e[0] for e in ev if e[2] in legs and is_write(e)),
                   default=None)
        if done is None or not any(t > done for t in hits):
            print('flushorder: no legs_changed after the last write')
            sys.exit(2)
        for t in hits:
            check_covered(ev, t, legs, t0, 'a leg changed state')
        print(f'flushorder: {len(hits)} leg state changes, each after a '
              'flush of every leg that covers its writes (the last write '
              f'done at {done:.0f}, the last change at {hits[-1]:.0f})')
    elif check == 'clean':
        bitmap, legs = args[0], args[1:]
        bw = bitmap_writes(ev, bitmap)
        if not bw:
            print('flushorder: the bitmap was not written')
            sys.exit(2)
        for e in bw:
            check_covered(ev, e[0], legs, t0, 'the bitmap was written')
        for leg in legs:
            why = uncovered(ev, leg, bw[-1][0], t0, need=True)
            if why:
                violation(ev, f'flushorder: the last bitmap write at '
                          f'{bw[-1][0]:.0f} came before leg {leg} was '
                          f'flushed: {why}')
        flushed = max(e[0] for e in ev if e[0] < bw[-1][0] and
                      e[2] in legs and is_flush(e, 'complete'))
        print(f'flushorder: {len(bw)} bitmap writes, the last at '
              f'{bw[-1][0]:.0f}, {bw[-1][0] - flushed:.0f} events after every '
              f'leg was flushed (the stop began at {t0:.0f})')
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
