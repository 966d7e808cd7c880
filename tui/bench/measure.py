#!/usr/bin/env python3
"""BENCHMARKS.md's interactive-mode figures, one run: exec -> first frame, keystroke ->
redraw with 10,000 lines of history above, and idle CPU over 10 s. Drives `dcl` (argv[1])
in a pseudo-terminal on the mock model, answering the cursor-position and device-attribute
queries as a terminal would. Stdlib only; prints the figures, asserts nothing."""
import fcntl, json, os, pty, select, statistics, struct, sys, tempfile, termios, time

DCL = sys.argv[1] if len(sys.argv) > 1 else "target/release/dcl"
READY = b"shift+tab to cycle"


class Session:
    def __init__(self, cwd, home, args=()):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            env = {"HOME": home, "PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color"}
            os.execve(DCL, [DCL, "--model", "mock-model", *args], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        self.out = b""

    def pump(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return b""
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return b""
        if b"\x1b[6n" in data:
            os.write(self.fd, b"\x1b[24;1R")
        if b"\x1b[c" in data:
            os.write(self.fd, b"\x1b[?1;2c")
        self.out += data
        return data

    def wait(self, needle, timeout=30.0):
        end = time.monotonic() + timeout
        while needle not in self.out:
            if time.monotonic() > end:
                raise SystemExit(f"timed out waiting for {needle!r}")
            self.pump(0.05)

    def cpu_ticks(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    def quit(self):
        os.write(self.fd, b"\x04")
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def main():
    root = tempfile.mkdtemp()
    cwd, home = os.path.join(root, "p"), os.path.join(root, "h")
    os.makedirs(cwd), os.makedirs(home)
    # Trusted already: the trust question is asked once, not on every start.
    with open(os.path.join(home, ".claude.json"), "w") as f:
        json.dump({"projects": {os.path.realpath(cwd): {"hasTrustDialogAccepted": True}}}, f)

    firsts = []
    for _ in range(5):
        t0 = time.monotonic()
        s = Session(cwd, home)
        s.wait(READY)
        firsts.append((time.monotonic() - t0) * 1000)
        s.quit()
    print(f"exec -> first frame: median {statistics.median(firsts):.1f} ms (5 runs: "
          + ", ".join(f"{x:.1f}" for x in firsts) + ")")

    s = Session(cwd, home)
    s.wait(READY)
    time.sleep(1)
    before = s.cpu_ticks()
    end = time.monotonic() + 10
    while time.monotonic() < end:
        s.pump(end - time.monotonic())
    ticks = s.cpu_ticks() - before
    print(f"idle CPU over 10 s: {ticks} clock ticks ({ticks * 1000 // os.sysconf('SC_CLK_TCK')} ms)")

    # 10,000 lines of history: a `!` command's output goes to the scrollback.
    for c in b"!seq 10000":
        os.write(s.fd, bytes([c]))
        s.pump(0.01)
    os.write(s.fd, b"\r")
    s.wait(b"10000")
    time.sleep(0.5)
    while s.pump(0.2):
        pass
    lat = []
    for i in range(30):
        s.out = b""
        ch = b"abcdefghijklmnopqrstuvwxyz0123"[i:i + 1]
        t0 = time.monotonic()
        os.write(s.fd, ch)
        while ch not in s.out:
            s.pump(1.0)
        lat.append((time.monotonic() - t0) * 1000)
    print(f"keystroke -> redraw, 10,000 lines of history: median {statistics.median(lat):.2f} ms, "
          f"max {max(lat):.2f} ms (30 keys)")
    s.quit()


main()
