#!/usr/bin/env python3
"""The differential harness: every scenario of corpus.py runs against dcl and the pinned
reference CLI, offline on a scripted fake model, and each decision is compared.

Both CLIs are driven in stream-json mode with `--permission-prompt-tool stdio` by a host
that denies every `can_use_tool` request (drive.py), with the same `--settings` rules,
permission mode, `--tools` list and tool call. An outcome is the decision — ran / asked /
refused — and its effect on the files: whether the result returned a secret, and which
files a write changed. Verdicts: same, dcl stricter, dcl looser, different (both acted,
differently, or one never answered).

Exit status: 1 when dcl is looser than the reference on a scenario that
tests/differential/accepted.json does not list with a reason; accepted entries that are
no longer looser are printed so they can be removed. Without the reference CLI it fails
when CI=true and skips (exit 0) otherwise.

Usage: python3 tests/differential/run.py [--write-report] [--only NAME ...] [--jobs N] [--keep]
                                          [--reuse-reference] [--from-results]
Env:   DCL_BIN (default $CARGO_TARGET_DIR/debug/dcl or target/debug/dcl),
       DCL_REFERENCE_CLI (default: the one tests/setup.sh installs under tests/.work).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from corpus import PWNED, SCENARIOS, SECRET  # noqa: E402
from drive import Run, base_env, drive  # noqa: E402
from fake_model import ScriptedModel  # noqa: E402

with open(os.path.join(HERE, "REFERENCE_VERSION"), encoding="utf-8") as _f:
    REFERENCE_VERSION = _f.read().strip()  # tests/setup.sh installs the same one
REFERENCE_DEFAULT = os.path.join(ROOT, "tests", ".work", "reference-cli", "node_modules", "@anthropic-ai",
                                 "claude-code-linux-x64", "claude")
ACCEPTED = os.path.join(HERE, "accepted.json")
# Why dcl decides otherwise where it is not looser (stricter, or different): {scenario: why}.
NOTES = os.path.join(HERE, "notes.json")
REPORT = os.path.join(ROOT, "docs", "path-decisions.md")
RESULTS = os.path.join(ROOT, "tests", ".work", "differential", "results.json")
# --reuse-reference: the reference's outcomes of earlier runs, keyed by what decides them.
REF_CACHE = os.path.join(ROOT, "tests", ".work", "differential", "reference-cache.json")
# The same tools for both; naming Glob and Grep also opts the reference into them (its
# native build otherwise leaves them out in favour of Bash's find and grep).
TOOLS = "Bash,Read,Write,Edit,Glob,Grep,NotebookEdit"
MODEL = "claude-opus-4-8"
TIMEOUT = 60.0
# Where the CLIs keep their own state (transcripts hold the tool input, PWNED included).
STATE_DIRS = {b".claude", b".dcl", b".cache", b".config", b".local"}

RANK = {"ran": 0, "asked": 1, "failed": 2, "refused": 2}


def dcl_bin() -> str:
    if os.environ.get("DCL_BIN"):
        return os.environ["DCL_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    return os.path.join(target, "debug", "dcl")


def reference_bin() -> str | None:
    path = os.environ.get("DCL_REFERENCE_CLI") or REFERENCE_DEFAULT
    return path if os.access(path, os.X_OK) else None


# --- scratch layout ---------------------------------------------------------------------

def _b(p: str | bytes) -> bytes:
    return p if isinstance(p, bytes) else os.fsencode(p)


def build(sc: dict[str, Any], root: bytes) -> dict[str, bytes]:
    """Lays out the scenario under root; returns its cwd, HOME and TMPDIR."""
    cwd = os.path.join(root, _b(sc.get("cwd", "proj")))
    for d in (b"proj", b"outside", b"tmp", cwd):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    if sc.get("home_link"):
        os.makedirs(os.path.join(root, b"realhome"), exist_ok=True)
        os.symlink(b"realhome", os.path.join(root, b"homelink"))
        home = os.path.join(root, b"homelink")
    else:
        home = os.path.join(root, b"home")
        os.makedirs(home, exist_ok=True)
    base_files: dict[bytes, str] = {
        cwd + b"/README.md": "# project\n",
        cwd + b"/.git/HEAD": "ref: refs/heads/main\n",
        root + b"/outside/secret.txt": "SECRET-outside\n",
    }
    if not sc.get("no_git_config"):
        base_files[cwd + b"/.git/config"] = "[core]\n\trepositoryformatversion = 0\n# SECRET-gitconfig\n"
    for path, text in base_files.items():
        _put(path, text)
    for d in sc.get("dirs", []):
        os.makedirs(os.path.join(root, _b(d)), exist_ok=True)
    for path, text in sc.get("files", {}).items():
        _put(os.path.join(root, _b(path)), text)
    for path, target in sc.get("links", {}).items():
        full = os.path.join(root, _b(path))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        os.symlink(_b(target), full)
    for path, existing in sc.get("hardlinks", {}).items():
        os.link(os.path.join(root, _b(existing)), os.path.join(root, _b(path)))
    return {"cwd": cwd, "home": home, "tmp": os.path.join(root, b"tmp")}


def _put(path: bytes, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _fill(value: Any, where: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in where.items():
            value = value.replace("{" + k + "}", v)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, where) for v in value]
    return value


def marked(root: bytes) -> dict[str, bytes]:
    """Regular files under root (links not followed; TMPDIR and the CLIs' state dirs in
    HOME skipped) that hold the write marker: relative path -> contents."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == root:
            dirnames[:] = [d for d in dirnames if d != b"tmp"]  # TMPDIR: the CLIs' own scratch
        dirnames[:] = [d for d in dirnames if not (d in STATE_DIRS and dirpath.endswith((b"/home", b"/realhome")))]
        for name in filenames:
            full = os.path.join(dirpath, name)
            try:
                if not stat.S_ISREG(os.lstat(full).st_mode):
                    continue
                with open(full, "rb") as f:
                    data = f.read(1 << 20)
            except OSError:
                continue
            if PWNED.encode() in data:
                out[os.path.relpath(full, root).decode("utf-8", "backslashreplace")] = data
    return out


def landed(root: bytes, before: dict[str, bytes] | None = None) -> list[str]:
    """The marked files that are new or changed since `before` (planted files carry the
    marker too): where the session's writes landed."""
    before = before or {}
    return sorted(p for p, data in marked(root).items() if before.get(p) != data)


# --- one scenario, one CLI ----------------------------------------------------------------

def run_one(sc: dict[str, Any], cli: str, keep: bool) -> dict[str, Any]:
    root = os.fsencode(tempfile.mkdtemp(prefix="dcl-diff-"))
    try:
        paths = build(sc, root)
        planted = marked(root)
        # The CLI is told HOME and cwd as given (HOME through its link, if any).
        where = {"root": os.fsdecode(root), "cwd": os.fsdecode(paths["cwd"]), "home": os.fsdecode(paths["home"])}
        tool_input = _fill(sc["input"], where)
        settings = {"permissions": _fill(sc.get("rules", {}), where)}
        argv = [cli, "-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                "--permission-prompt-tool", "stdio", "--permission-mode", sc.get("mode", "default"),
                "--settings", json.dumps(settings), "--tools", TOOLS, "--model", MODEL,
                "--no-session-persistence"]
        for d in _fill(sc.get("add_dirs", []), where):
            argv += ["--add-dir", d]
        with ScriptedModel(sc["tool"], tool_input, _setup_read(sc["tool"], tool_input, paths["cwd"])) as model:
            env: dict[Any, Any] = base_env(paths["home"], model.base_url, paths["tmp"])
            if sc.get("env"):
                env = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
                env.update(sc["env"])
            run = drive(argv, env, paths["cwd"], TIMEOUT)
            offered = sc["tool"] in model.tools_seen
        return outcome(run, landed(root, planted), offered)
    finally:
        if keep:
            print(f"  kept {os.fsdecode(root)} ({sc['name']})", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


def _setup_read(tool: str, tool_input: dict[str, Any], cwd: bytes) -> str | None:
    """The path a Write or Edit of an existing file reads first, as a model would (the
    reference refuses to change a file the session has not read, before deciding)."""
    if tool not in ("Write", "Edit", "NotebookEdit"):
        return None
    path = tool_input.get("file_path") or tool_input["notebook_path"]
    local = os.fsencode(path)
    if local.startswith(b"/proc/self/cwd/"):
        local = cwd + local[len(b"/proc/self/cwd"):]
    return path if os.path.exists(os.path.join(cwd, local)) else None


def outcome(run: Run, writes: list[str], offered: bool) -> dict[str, Any]:
    decision = run.decision
    leak = run.tool_result is not None and SECRET in run.tool_result and decision == "ran"
    if decision == "ran" and run.tool_error:
        decision = "failed"
    return {
        "decision": decision,
        "read_secret": leak,
        "wrote": writes,
        "result": (run.tool_result or "")[:300],
        "asked_input": run.ask_inputs[:1],
        "exit": run.exit_code,
        "timed_out": run.timed_out,
        "tool_offered": offered,
        "stderr": run.stderr_tail[-300:] if decision == "none" else "",
        "seconds": round(run.seconds, 2),
    }


def effect(o: dict[str, Any]) -> str:
    parts = []
    if o["read_secret"]:
        parts.append("returned the secret")
    if o["wrote"]:
        parts.append("wrote " + ", ".join(f"`{_short(w)}`" for w in o["wrote"]))
    return "; ".join(parts)


def _short(path: str) -> str:
    return path if len(path) <= 60 else f"{path[:28]}…{path[-28:]}"


def harmful(o: dict[str, Any]) -> bool:
    return bool(o["read_secret"] or o["wrote"])


def verdict(ref: dict[str, Any], dcl: dict[str, Any]) -> str:
    if ref["decision"] == "none":
        # The reference did not start or never answered (a non-UTF-8 cwd: it exits 1).
        if ref["timed_out"]:
            return "no reference answer"
        return "dcl looser" if harmful(dcl) else "different"
    if ref["decision"] == dcl["decision"] and effect(ref) == effect(dcl):
        return "same"
    if harmful(dcl) and not harmful(ref):
        return "dcl looser"
    if harmful(ref) and not harmful(dcl):
        # A dcl tool that ran and failed where the reference's worked did not decide
        # anything stricter: it is broken there (a twin scenario shows it).
        return "different" if dcl["decision"] in ("failed", "none") and ref["decision"] == "ran" else "dcl stricter"
    if dcl["decision"] == "none":
        return "different"
    if harmful(ref) and harmful(dcl):
        return "different" if effect(ref) != effect(dcl) else (
            "dcl looser" if RANK[dcl["decision"]] < RANK[ref["decision"]] else
            "dcl stricter" if RANK[dcl["decision"]] > RANK[ref["decision"]] else "different")
    # Neither touched anything: the decision alone. A dcl call that ran without asking
    # where the reference asked or refused is looser even when it happened to fail.
    if dcl["decision"] == "failed" and ref["decision"] in ("asked", "refused"):
        return "dcl looser" if ref["decision"] == "refused" else "different"
    if RANK[dcl["decision"]] < RANK[ref["decision"]]:
        return "dcl looser"
    if RANK[dcl["decision"]] > RANK[ref["decision"]]:
        return "dcl stricter"
    return "different"


def cache_key(sc: dict[str, Any], version: str) -> str:
    """What a reference outcome depends on: the scenario, the reference's version and the
    harness's own code (a change to how scenarios run or are judged invalidates it)."""
    h = hashlib.sha256(version.encode())
    h.update(repr(sorted(sc.items(), key=lambda kv: kv[0])).encode())
    for name in ("run.py", "drive.py", "fake_model.py", "corpus.py"):
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


# --- the whole corpus -----------------------------------------------------------------------

def describe(o: dict[str, Any]) -> str:
    text = o["decision"]
    if o["decision"] == "none":
        text = "no answer" + (" (timed out)" if o["timed_out"] else f" (exit {o['exit']})")
    e = effect(o)
    return f"{text}: {e}" if e else text


HOW_TO_READ = """
Each scenario is one tool call from the model, the same for both CLIs, driven in stream-json
mode by a host that denies every `can_use_tool` request. A Write or Edit of an existing file
first reads it (a setup Read the host allows), as the reference refuses to change unread files.

- **ran**: the tool ran without asking; **asked**: the host got a `can_use_tool` request (and
  denied it); **refused**: a denial the host was never asked about; **failed**: the tool ran
  without asking and returned an error; **no answer**: the CLI exited without a result.
- After the colon, what happened to the files: the secret returned (a secret file's contents
  or name), and where a write landed. In the `twin-` scenarios (what must keep working) the
  marked file is one the call may read or write.
- **different**: neither is stricter (both acted, differently; or dcl's tool failed where the
  reference's worked).

The scenarios are in `tests/differential/corpus.py`; where dcl is looser,
`tests/differential/accepted.json` gives the reason it is accepted for now.
"""


def write_report(rows: list[dict[str, Any]], accepted: dict[str, str], seconds: float) -> None:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines = [
        "# Path decisions: dcl against the reference CLI",
        "",
        f"Generated by `python3 tests/differential/run.py --write-report` (reference: "
        f"`@anthropic-ai/claude-code@{REFERENCE_VERSION}`, offline on a scripted fake model; "
        f"{len(rows)} scenarios in {seconds:.0f} s). Do not edit by hand.",
        "",
        *HOW_TO_READ.strip().splitlines(),
        "",
        "Totals: " + ", ".join(f"{v}: {n}" for v, n in sorted(counts.items())) + ".",
        "",
        "| scenario | setup and call | reference | dcl | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        v = r["verdict"]
        if v == "dcl looser":
            v = "**dcl looser**" + (" (accepted)" if r["name"] in accepted else "")
        lines.append(f"| `{r['name']}` | {r['about'].replace('|', '&#124;')} | {describe(r['reference'])} | "
                     f"{describe(r['dcl'])} | {v} |")
    with open(NOTES, encoding="utf-8") as f:
        notes: dict[str, str] = json.load(f)
    noted = [r for r in rows if r["verdict"] not in ("same", "dcl looser") and r["name"] in notes]
    if noted:
        lines += ["", "## Where dcl is stricter or different (tests/differential/notes.json)", ""]
        lines += [f"- `{r['name']}` ({r['verdict']}): {notes[r['name']]}" for r in noted]
    by_reason: dict[str, list[str]] = {}
    for r in rows:
        if r["name"] in accepted:
            by_reason.setdefault(accepted[r["name"]], []).append(r["name"])
    if by_reason:
        lines += ["", "## Accepted differences (tests/differential/accepted.json)", ""]
        lines += [f"- {reason}: " + ", ".join(f"`{n}`" for n in names) for reason, names in by_reason.items()]
    os.makedirs(os.path.dirname(REPORT), exist_ok=True)
    with open(REPORT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-report", action="store_true", help=f"regenerate {os.path.relpath(REPORT, ROOT)}")
    ap.add_argument("--only", nargs="*", default=None, help="run only these scenarios")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the scratch dirs")
    ap.add_argument("--reuse-reference", action="store_true",
                    help="reuse the reference's outcomes of earlier runs of the same scenarios and harness "
                         "(for iterating on dcl; CI runs both every time)")
    ap.add_argument("--from-results", action="store_true",
                    help=f"judge the last run's {os.path.relpath(RESULTS, ROOT)} again instead of running")
    args = ap.parse_args()
    if args.write_report and args.only is not None:
        print("differential: --write-report needs the whole corpus (no --only)", file=sys.stderr)
        return 2
    with open(ACCEPTED, encoding="utf-8") as f:
        accepted: dict[str, str] = json.load(f)
    if args.from_results:
        with open(RESULTS, encoding="utf-8") as f:
            last = json.load(f)
        if args.write_report and {r["name"] for r in last["rows"]} != {s["name"] for s in SCENARIOS}:
            print("differential: the last run did not cover the whole corpus; run it again", file=sys.stderr)
            return 2
        about = {s["name"]: s["about"] for s in SCENARIOS}
        for row in last["rows"]:
            row["verdict"] = verdict(row["reference"], row["dcl"])
            row["about"] = about.get(row["name"], row["about"])
        return finish(last["rows"], accepted, last["seconds"], args.write_report)

    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    ref = reference_bin()
    if ref is None:
        tried = os.environ.get("DCL_REFERENCE_CLI") or REFERENCE_DEFAULT
        msg = f"reference CLI not installed ({tried}; run `bash tests/setup.sh` or set DCL_REFERENCE_CLI)"
        if ci:
            print(f"differential: FAIL: {msg}", file=sys.stderr)
            return 1
        print(f"differential: skipped: {msg}")
        return 0
    version = subprocess.run([ref, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    if not version.startswith(REFERENCE_VERSION):
        print(f"differential: FAIL: the reference is {version!r}, not {REFERENCE_VERSION}", file=sys.stderr)
        return 1
    dcl = dcl_bin()
    if not os.access(dcl, os.X_OK):
        print(f"differential: FAIL: no dcl at {dcl} (cargo build -p dcl-cli, or set DCL_BIN)", file=sys.stderr)
        return 1

    scenarios = [s for s in SCENARIOS if args.only is None or s["name"] in args.only]

    t0 = time.monotonic()

    cache: dict[str, Any] = {}
    if args.reuse_reference and os.path.exists(REF_CACHE):
        with open(REF_CACHE, encoding="utf-8") as f:
            cache = json.load(f)

    def one(sc: dict[str, Any]) -> dict[str, Any]:
        key = cache_key(sc, version)
        r = cache.get(key) if args.reuse_reference else None
        if r is None:
            r = run_one(sc, ref, args.keep)
            cache[key] = r
        d = run_one(sc, dcl, args.keep)
        row = {"name": sc["name"], "about": sc["about"], "reference": r, "dcl": d, "verdict": verdict(r, d)}
        print(f"  {row['verdict']:<20} {sc['name']:<40} ref={describe(r)} | dcl={describe(d)}", flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(one, scenarios))
    seconds = time.monotonic() - t0

    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    keep = {cache_key(sc, version) for sc in SCENARIOS}
    with open(REF_CACHE, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in cache.items() if k in keep}, f)
    with open(RESULTS, "w", encoding="utf-8") as f:
        json.dump({"reference": version, "dcl": dcl, "seconds": round(seconds, 1), "rows": rows}, f, indent=1)
    return finish(rows, accepted, seconds, args.write_report)


def finish(rows: list[dict[str, Any]], accepted: dict[str, str], seconds: float, report: bool) -> int:
    """Writes the report when asked; the exit status (see the module doc)."""
    if report:
        write_report(rows, accepted, seconds)
        print(f"differential: wrote {os.path.relpath(REPORT, ROOT)}")
    unknown = sorted(set(accepted) - {s["name"] for s in SCENARIOS})
    bad = sorted(k for k, v in accepted.items() if not str(v).strip())
    looser = [r["name"] for r in rows if r["verdict"] == "dcl looser"]
    failing = [n for n in looser if n not in accepted]
    stale = [r["name"] for r in rows if r["name"] in accepted and r["verdict"] != "dcl looser"]
    no_ref = [r["name"] for r in rows if r["verdict"] == "no reference answer"]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"differential: {len(rows)} scenarios in {seconds:.1f}s: "
          + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    with open(NOTES, encoding="utf-8") as f:
        notes: dict[str, str] = json.load(f)
    unexplained = [r["name"] for r in rows if r["verdict"] in ("dcl stricter", "different") and r["name"] not in notes]
    if unexplained:
        print("differential: stricter or different without a note in notes.json (add why): " + ", ".join(unexplained))
    if stale:
        print("differential: accepted but no longer looser (remove from accepted.json): " + ", ".join(stale))
    rc = 0
    if unknown:
        print("differential: FAIL: accepted.json names unknown scenarios: " + ", ".join(unknown), file=sys.stderr)
        rc = 1
    if bad:
        print("differential: FAIL: accepted.json entries without a reason: " + ", ".join(bad), file=sys.stderr)
        rc = 1
    if no_ref:
        print("differential: FAIL: the reference timed out on: " + ", ".join(no_ref), file=sys.stderr)
        rc = 1
    if failing:
        print("differential: FAIL: dcl is looser than the reference on: " + ", ".join(failing), file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
