"""The scenarios: one project layout, one settings block and one tool call each.

Every scenario runs in a fresh scratch root holding `proj/` (the session's cwd unless
`cwd` says otherwise; it is a git repository: `.git/HEAD`, `.git/config`), `home/` (HOME
unless `home_link` points HOME through a symlink), `outside/secret.txt` and `tmp/`.
Paths in `files`, `dirs`, `links` and `hardlinks` are relative to the root (str or bytes:
names may be non-UTF-8). `{root}`, `{cwd}` and `{home}` in the tool input, the rules and
`add_dirs` become absolute paths (HOME as the CLI sees it, through the link if any).

Markers: every secret file holds `SECRET`, so a tool result containing it is a leak;
writes carry `PWNED`, so any file holding it afterwards is where a write landed.
"""

from __future__ import annotations

import json
from typing import Any

SECRET = "SECRET"
PWNED = "PWNED"

Scenario = dict[str, Any]


def _s(name: str, about: str, tool: str, tool_input: dict[str, Any], **kw: Any) -> Scenario:
    return {"name": name, "about": about, "tool": tool, "input": tool_input, **kw}


def _write(path: str) -> dict[str, Any]:
    return {"file_path": path, "content": f"{PWNED} by the differential harness\n"}


def _edit(path: str) -> dict[str, Any]:
    return {"file_path": path, "old_string": SECRET, "new_string": PWNED}


ENV_LINK = {"files": {"proj/config/dev.env": "API_KEY=SECRET-dev\n"}, "links": {"proj/.env": "config/dev.env"}}
SECRET_DIR_LINK = {"files": {"proj/private/SECRET_key.txt": "SECRET-key\n"}, "links": {"proj/secret": "private"}}
CFG_LINK = {"files": {"proj/conf/app.ini": "token=SECRET-app\n"}, "links": {"proj/cfg": "conf"}}
SHARED_SETTINGS = {"files": {"proj/dotconf/settings.json": "{}\n"}, "links": {"proj/.claude/settings.json": "../dotconf/settings.json"},
                   "dirs": ["proj/.claude"]}
HOME_SSH = {"home_link": True, "files": {"realhome/.ssh/id_rsa": "SECRET-ssh-key\n", "realhome/.ssh/config": "Host SECRET\n"}}
OUT_LINK = {"links": {"proj/inlink": "../outside"}}
NOTEBOOK = {"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": "print('SECRET')",
                       "outputs": [], "execution_count": None}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _merge(*parts: dict[str, Any], **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in (*parts, kw):
        for k, v in p.items():
            if isinstance(v, dict) and isinstance(out.get(k), dict):
                out[k] = {**out[k], **v}
            elif isinstance(v, list) and isinstance(out.get(k), list):
                out[k] = out[k] + v
            else:
                out[k] = v
    return out


def deny(*rules: str) -> dict[str, Any]:
    return {"rules": {"deny": list(rules)}}


ACCEPT = {"mode": "acceptEdits"}

SCENARIOS: list[Scenario] = [
    # --- A deny rule that names a symlink --------------------------------------------------
    _s("read-deny-names-file-link", "`.env -> config/dev.env`, deny `Read(./.env)`, Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, **_merge(ENV_LINK, deny("Read(./.env)"))),
    _s("read-deny-names-target", "`.env -> config/dev.env`, deny `Read(./config/dev.env)`, Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, **_merge(ENV_LINK, deny("Read(./config/dev.env)"))),
    _s("read-deny-names-dir-link", "`secret -> private`, deny `Read(./secret/**)`, Read `secret/SECRET_key.txt`",
       "Read", {"file_path": "{cwd}/secret/SECRET_key.txt"}, **_merge(SECRET_DIR_LINK, deny("Read(./secret/**)"))),
    _s("read-deny-dir-link-real-path", "`secret -> private`, deny `Read(./secret/**)`, Read `private/SECRET_key.txt`",
       "Read", {"file_path": "{cwd}/private/SECRET_key.txt"}, **_merge(SECRET_DIR_LINK, deny("Read(./secret/**)"))),
    _s("grep-deny-dir-link", "`secret -> private`, deny `Read(./secret/**)`, Grep `SECRET` in `secret`",
       "Grep", {"pattern": SECRET, "path": "{cwd}/secret", "output_mode": "content"},
       **_merge(SECRET_DIR_LINK, deny("Read(./secret/**)"))),
    _s("glob-deny-dir-link", "`secret -> private`, deny `Read(./secret/**)`, Glob `*` in `secret`",
       "Glob", {"pattern": "*", "path": "{cwd}/secret"}, **_merge(SECRET_DIR_LINK, deny("Read(./secret/**)"))),
    _s("bash-cat-deny-dir-link", "`secret -> private`, deny `Read(./secret/**)`, Bash `cat secret/SECRET_key.txt`",
       "Bash", {"command": "cat secret/SECRET_key.txt"}, **_merge(SECRET_DIR_LINK, deny("Read(./secret/**)"))),
    _s("bash-cat-deny-file-link", "`.env -> config/dev.env`, deny `Read(./.env)`, Bash `cat .env`",
       "Bash", {"command": "cat .env"}, **_merge(ENV_LINK, deny("Read(./.env)"))),
    _s("edit-deny-dir-link", "acceptEdits, `cfg -> conf`, deny `Edit(./cfg/**)`, Edit `cfg/app.ini`",
       "Edit", _edit("{cwd}/cfg/app.ini"), **_merge(CFG_LINK, deny("Edit(./cfg/**)"), ACCEPT)),
    _s("write-deny-dir-link", "acceptEdits, `cfg -> conf`, deny `Edit(./cfg/**)`, Write `cfg/new.ini`",
       "Write", _write("{cwd}/cfg/new.ini"), **_merge(CFG_LINK, deny("Edit(./cfg/**)"), ACCEPT)),
    _s("read-deny-home-through-link", "HOME is `homelink -> realhome`, deny `Read(~/.ssh/**)`, Read `$HOME/.ssh/id_rsa`",
       "Read", {"file_path": "{home}/.ssh/id_rsa"}, **_merge(HOME_SSH, deny("Read(~/.ssh/**)"))),
    _s("read-deny-home-real-path", "HOME is `homelink -> realhome`, deny `Read(~/.ssh/**)`, Read `realhome/.ssh/id_rsa`",
       "Read", {"file_path": "{root}/realhome/.ssh/id_rsa"}, **_merge(HOME_SSH, deny("Read(~/.ssh/**)"))),
    _s("edit-deny-home-through-link", "HOME through a link, `--add-dir $HOME`, acceptEdits, deny `Edit(~/.ssh/**)`, Edit `~/.ssh/config`",
       "Edit", _edit("{home}/.ssh/config"), **_merge(HOME_SSH, deny("Edit(~/.ssh/**)"), ACCEPT, add_dirs=["{home}"])),
    _s("read-deny-link-chain-middle", "`a -> b -> c -> config/dev.env`, deny `Read(./b)`, Read `a`",
       "Read", {"file_path": "{cwd}/a"},
       **_merge({"files": {"proj/config/dev.env": "SECRET-chain\n"},
                 "links": {"proj/a": "b", "proj/b": "c", "proj/c": "config/dev.env"}}, deny("Read(./b)"))),
    _s("read-deny-dotdot", "deny `Read(./.env)`, Read `sub/../.env`",
       "Read", {"file_path": "{cwd}/sub/../.env"},
       **_merge({"files": {"proj/.env": "SECRET-plain\n"}, "dirs": ["proj/sub"]}, deny("Read(./.env)"))),
    _s("read-deny-proc-self-cwd", "deny `Read(./.env)`, Read `/proc/self/cwd/.env`",
       "Read", {"file_path": "/proc/self/cwd/.env"},
       **_merge({"files": {"proj/.env": "SECRET-plain\n"}}, deny("Read(./.env)"))),
    _s("read-deny-hard-link", "deny `Read(./.env)`, `env.bak` a hard link of `.env`, Read `env.bak`",
       "Read", {"file_path": "{cwd}/env.bak"},
       **_merge({"files": {"proj/.env": "SECRET-plain\n"}, "hardlinks": {"proj/env.bak": "proj/.env"}}, deny("Read(./.env)"))),
    _s("read-deny-absolute-rule-file-link", "`.env -> config/dev.env`, deny `Read(//<cwd>/.env)` (absolute), Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, **_merge(ENV_LINK, deny("Read(/{cwd}/.env)"))),
    _s("read-ask-names-file-link", "`.env -> config/dev.env`, ask `Read(./.env)`, Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, **_merge(ENV_LINK, {"rules": {"ask": ["Read(./.env)"]}})),
    _s("notebook-deny-dir-link", "acceptEdits, `cfg -> conf`, deny `Edit(./cfg/**)`, NotebookEdit `cfg/nb.ipynb`",
       "NotebookEdit", {"notebook_path": "{cwd}/cfg/nb.ipynb", "cell_id": "c1", "new_source": PWNED},
       **_merge(CFG_LINK, {"files": {"proj/conf/nb.ipynb": json.dumps(NOTEBOOK)}}, deny("Edit(./cfg/**)"), ACCEPT)),
    _s("bash-redirect-claude-settings-link", "acceptEdits, `.claude/settings.json -> ../dotconf/settings.json`, "
       "Bash `echo PWNED > .claude/settings.json`",
       "Bash", {"command": f"echo {PWNED} > .claude/settings.json"}, **_merge(SHARED_SETTINGS, ACCEPT)),
    _s("edit-hard-link-of-git-config", "acceptEdits, `gitconfig.txt` a hard link of `.git/config`, Edit `gitconfig.txt`",
       "Edit", _edit("{cwd}/gitconfig.txt"), **_merge({"hardlinks": {"proj/gitconfig.txt": "proj/.git/config"}}, ACCEPT)),
    # --- Protected files that are symlinks (acceptEdits, no rules) ------------------------
    _s("write-claude-settings-plain", "acceptEdits, Write `.claude/settings.json` (a regular file)",
       "Write", _write("{cwd}/.claude/settings.json"), **_merge({"files": {"proj/.claude/settings.json": "{}\n"}}, ACCEPT)),
    _s("write-claude-settings-link", "acceptEdits, `.claude/settings.json -> ../dotconf/settings.json`, Write it",
       "Write", _write("{cwd}/.claude/settings.json"), **_merge(SHARED_SETTINGS, ACCEPT)),
    _s("write-claude-settings-link-target", "acceptEdits, `.claude/settings.json -> ../dotconf/settings.json`, Write `dotconf/settings.json`",
       "Write", _write("{cwd}/dotconf/settings.json"), **_merge(SHARED_SETTINGS, ACCEPT)),
    _s("write-claude-dir-link", "acceptEdits, `.claude -> claude-conf`, Write `.claude/settings.json`",
       "Write", _write("{cwd}/.claude/settings.json"),
       **_merge({"files": {"proj/claude-conf/settings.json": "{}\n"}, "links": {"proj/.claude": "claude-conf"}}, ACCEPT)),
    _s("write-dcl-dir-link", "acceptEdits, `.dcl -> dcl-conf`, Write `.dcl/settings.json`",
       "Write", _write("{cwd}/.dcl/settings.json"),
       **_merge({"files": {"proj/dcl-conf/settings.json": "{}\n"}, "links": {"proj/.dcl": "dcl-conf"}}, ACCEPT)),
    _s("write-mcp-json-link", "acceptEdits, `.mcp.json -> config/mcp.json`, Write `.mcp.json`",
       "Write", _write("{cwd}/.mcp.json"),
       **_merge({"files": {"proj/config/mcp.json": "{}\n"}, "links": {"proj/.mcp.json": "config/mcp.json"}}, ACCEPT)),
    _s("write-git-hooks-link", "acceptEdits, `.git/hooks -> ../githooks`, Write `.git/hooks/pre-commit`",
       "Write", _write("{cwd}/.git/hooks/pre-commit"),
       **_merge({"dirs": ["proj/githooks"], "links": {"proj/.git/hooks": "../githooks"}}, ACCEPT)),
    _s("write-git-config-link", "acceptEdits, `.git/config -> ../gitconfig`, Write `.git/config`",
       "Write", _write("{cwd}/.git/config"),
       **_merge({"files": {"proj/gitconfig": "[core]\n"}, "links": {"proj/.git/config": "../gitconfig"}, "no_git_config": True}, ACCEPT)),
    _s("edit-git-config-plain", "acceptEdits, Edit `.git/config` (a regular file)",
       "Edit", _edit("{cwd}/.git/config"), **ACCEPT),
    _s("write-bashrc-stow-link", "`--add-dir $HOME`, acceptEdits, `~/.bashrc -> dotfiles/bashrc`, Write `~/.bashrc`",
       "Write", _write("{home}/.bashrc"),
       **_merge({"files": {"home/dotfiles/bashrc": "# rc\n"}, "links": {"home/.bashrc": "dotfiles/bashrc"}}, ACCEPT, add_dirs=["{home}"])),
    _s("write-claude-json-home", "`--add-dir $HOME`, acceptEdits, Write `~/.claude.json`",
       "Write", _write("{home}/.claude.json"), **_merge(ACCEPT, add_dirs=["{home}"])),
    _s("write-proc-self-cwd-git-config", "acceptEdits, Write `/proc/self/cwd/.git/config`",
       "Write", _write("/proc/self/cwd/.git/config"), **ACCEPT),
    _s("write-dotdot-claude-settings", "acceptEdits, Write `sub/../.claude/settings.json`",
       "Write", _write("{cwd}/sub/../.claude/settings.json"),
       **_merge({"files": {"proj/.claude/settings.json": "{}\n"}, "dirs": ["proj/sub"]}, ACCEPT)),
    _s("write-proc-self-root-claude-settings", "acceptEdits, Write `/proc/self/root/<cwd>/.claude/settings.json`",
       "Write", _write("/proc/self/root{cwd}/.claude/settings.json"), **_merge({"dirs": ["proj/.claude"]}, ACCEPT)),
    _s("write-double-slash-claude-settings", "acceptEdits, Write `<cwd>//.claude//settings.json`",
       "Write", _write("{cwd}//.claude//settings.json"), **_merge({"dirs": ["proj/.claude"]}, ACCEPT)),
    _s("edit-dot-segment-git-config", "acceptEdits, Edit `./.git/./config`",
       "Edit", _edit("{cwd}/./.git/./config"), **ACCEPT),
    _s("bash-tee-git-hooks-link", "acceptEdits, `.git/hooks -> ../githooks`, Bash `echo PWNED | tee .git/hooks/pre-commit`",
       "Bash", {"command": f"echo {PWNED} | tee .git/hooks/pre-commit"},
       **_merge({"dirs": ["proj/githooks"], "links": {"proj/.git/hooks": "../githooks"}}, ACCEPT)),
    # --- Case variants and the reference's extra names -------------------------------------
    _s("write-case-Claude-settings", "acceptEdits, Write `.Claude/settings.json`",
       "Write", _write("{cwd}/.Claude/settings.json"), **_merge({"dirs": ["proj/.Claude"]}, ACCEPT)),
    _s("write-case-GIT-config", "acceptEdits, Write `.GIT/config`",
       "Write", _write("{cwd}/.GIT/config"), **_merge({"dirs": ["proj/.GIT"]}, ACCEPT)),
    _s("write-case-MCP-json", "acceptEdits, Write `.MCP.json`", "Write", _write("{cwd}/.MCP.json"), **ACCEPT),
    _s("write-vscode-settings", "acceptEdits, Write `.vscode/settings.json`",
       "Write", _write("{cwd}/.vscode/settings.json"), **_merge({"dirs": ["proj/.vscode"]}, ACCEPT)),
    _s("write-idea-workspace", "acceptEdits, Write `.idea/workspace.xml`",
       "Write", _write("{cwd}/.idea/workspace.xml"), **_merge({"dirs": ["proj/.idea"]}, ACCEPT)),
    _s("write-gitmodules", "acceptEdits, Write `.gitmodules`", "Write", _write("{cwd}/.gitmodules"), **ACCEPT),
    _s("write-ripgreprc", "acceptEdits, Write `.ripgreprc`", "Write", _write("{cwd}/.ripgreprc"), **ACCEPT),
    # --- Outside the project through a link ----------------------------------------------
    _s("read-outside-dotdot", "Read `../outside/secret.txt`",
       "Read", {"file_path": "{cwd}/../outside/secret.txt"}),
    _s("read-outside-dir-link", "`inlink -> ../outside`, Read `inlink/secret.txt`",
       "Read", {"file_path": "{cwd}/inlink/secret.txt"}, **OUT_LINK),
    _s("write-outside-dir-link", "acceptEdits, `inlink -> ../outside`, Write `inlink/new.txt`",
       "Write", _write("{cwd}/inlink/new.txt"), **_merge(OUT_LINK, ACCEPT)),
    _s("edit-outside-file-link", "acceptEdits, `notes.txt -> ../outside/secret.txt`, Edit `notes.txt`",
       "Edit", _edit("{cwd}/notes.txt"), **_merge({"links": {"proj/notes.txt": "../outside/secret.txt"}}, ACCEPT)),
    # --- Odd names --------------------------------------------------------------------------
    _s("read-deny-cwd-brackets", "cwd `proj[1]`, deny `Read(./.env)`, Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, cwd="proj[1]",
       **_merge({"files": {"proj[1]/.env": "SECRET-brackets\n"}}, deny("Read(./.env)"))),
    _s("read-deny-cwd-braces", "cwd `proj{a}`, deny `Read(./.env)`, Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, cwd="proj{a}",
       **_merge({"files": {"proj{a}/.env": "SECRET-braces\n"}}, deny("Read(./.env)"))),
    _s("read-deny-cwd-non-utf8", "cwd `proj\\xff` (not UTF-8), deny `Read(./.env)`, Read `.env` (relative)",
       "Read", {"file_path": ".env"}, cwd=b"proj\xff",
       **_merge({"files": {b"proj\xff/.env": "SECRET-bytes\n"}}, deny("Read(./.env)"))),
    _s("grep-deny-non-utf8-name", "deny `Read(./private/**)`, a non-UTF-8 file name in `private/`, Grep `SECRET` in the project",
       "Grep", {"pattern": SECRET, "path": "{cwd}", "output_mode": "content"},
       **_merge({"files": {b"proj/private/caf\xe9.txt": "SECRET-latin1\n"}}, deny("Read(./private/**)"))),
    _s("read-env-non-utf8", "a non-UTF-8 environment variable, Read `README.md`",
       "Read", {"file_path": "{cwd}/README.md"}, env={b"DIFF_ODD": b"caf\xe9"}),
    _s("read-deny-glob-chars-in-name", "deny `Read(./data[1].env)`, Read `data[1].env`",
       "Read", {"file_path": "{cwd}/data[1].env"},
       **_merge({"files": {"proj/data[1].env": "SECRET-bracket-name\n", "proj/data1.env": "plain\n"}}, deny("Read(./data[1].env)"))),
    _s("read-deny-dir-dotdot-inside-rule", "`secret -> private`, deny `Read(./secret/**)`, Read `secret/../secret/SECRET_key.txt`",
       "Read", {"file_path": "{cwd}/secret/../secret/SECRET_key.txt"}, **_merge(SECRET_DIR_LINK, deny("Read(./secret/**)"))),
    _s("read-outside-link-chain", "`x -> y -> ../outside/secret.txt`, Read `x`",
       "Read", {"file_path": "{cwd}/x"}, links={"proj/x": "y", "proj/y": "../outside/secret.txt"}),
    _s("grep-outside-dir-link", "`inlink -> ../outside`, Grep `SECRET` in `inlink`",
       "Grep", {"pattern": SECRET, "path": "{cwd}/inlink", "output_mode": "content"}, **OUT_LINK),
    _s("glob-outside-dir-link", "`inlink -> ../outside`, Glob `*` in `inlink`",
       "Glob", {"pattern": "*", "path": "{cwd}/inlink"}, **OUT_LINK),
    _s("bash-cat-outside-dir-link", "`inlink -> ../outside`, Bash `cat inlink/secret.txt`",
       "Bash", {"command": "cat inlink/secret.txt"}, **OUT_LINK),
    _s("bash-cat-deny-proc-self-cwd", "deny `Read(./.env)`, Bash `cat /proc/self/cwd/.env`",
       "Bash", {"command": "cat /proc/self/cwd/.env"}, **_merge({"files": {"proj/.env": "SECRET-plain\n"}}, deny("Read(./.env)"))),
    _s("write-claude-settings-local-link", "acceptEdits, `.claude/settings.local.json -> ../local.json`, Write it",
       "Write", _write("{cwd}/.claude/settings.local.json"),
       **_merge({"files": {"proj/local.json": "{}\n"}, "links": {"proj/.claude/settings.local.json": "../local.json"},
                 "dirs": ["proj/.claude"]}, ACCEPT)),
    _s("write-claude-json-home-link", "`--add-dir $HOME`, acceptEdits, `~/.claude.json -> dotfiles/claude.json`, Write `~/.claude.json` "
       "(the reference rewrites its own `~/.claude.json` at start: it refuses the link, or fails as the file changed since read)",
       "Write", _write("{home}/.claude.json"),
       **_merge({"files": {"home/dotfiles/claude.json": "{}\n"}, "links": {"home/.claude.json": "dotfiles/claude.json"}},
                ACCEPT, add_dirs=["{home}"])),
    # --- What a planted project file does in the next session --------------------------------
    _s("session-planted-mcp-json", "a project `.mcp.json` whose server writes a file when started; Read `README.md`",
       "Read", {"file_path": "{cwd}/README.md"},
       files={"proj/.mcp.json": json.dumps({"mcpServers": {"planted": {
           "command": "sh", "args": ["-c", f"echo {PWNED} > mcp-started.txt"]}}})}),
    _s("session-project-hook", "`.claude/settings.json` with a PreToolUse command hook writing a file; Read `README.md`",
       "Read", {"file_path": "{cwd}/README.md"},
       files={"proj/.claude/settings.json": json.dumps({"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [
           {"type": "command", "command": f"echo {PWNED} > hook-ran.txt"}]}]}})}),
    _s("flag-allow-bash-redirect", "`--settings` allows `Bash` (a flag layer, not the repository's); "
       "Bash `echo PWNED > made.txt`",
       "Bash", {"command": f"echo {PWNED} > made.txt"}, rules={"allow": ["Bash"]}),
    _s("session-project-allow-bash", "`.claude/settings.json` allows `Bash`; Bash `echo PWNED > made.txt`",
       "Bash", {"command": f"echo {PWNED} > made.txt"},
       files={"proj/.claude/settings.json": json.dumps({"permissions": {"allow": ["Bash"]}})}),
    # --- Positive twins: what must keep working ---------------------------------------------
    _s("twin-read-file-link", "`.env -> config/dev.env`, no rules, Read `.env`",
       "Read", {"file_path": "{cwd}/.env"}, **ENV_LINK),
    _s("twin-read-dir-link-undenied", "`secret -> private`, deny `Read(./other/**)`, Read `secret/SECRET_key.txt`",
       "Read", {"file_path": "{cwd}/secret/SECRET_key.txt"}, **_merge(SECRET_DIR_LINK, deny("Read(./other/**)"))),
    _s("twin-write-dir-link-inside", "acceptEdits, `cfg -> conf`, Write `cfg/new.ini`",
       "Write", _write("{cwd}/cfg/new.ini"), **_merge(CFG_LINK, ACCEPT)),
    _s("twin-edit-allow-dir-link", "`cfg -> conf`, allow `Edit(./cfg/**)`, Edit `cfg/app.ini`",
       "Edit", _edit("{cwd}/cfg/app.ini"), **_merge(CFG_LINK, {"rules": {"allow": ["Edit(./cfg/**)"]}})),
    _s("twin-bash-cat-link-undenied", "`.env -> config/dev.env`, deny `Read(./other)`, Bash `cat .env`",
       "Bash", {"command": "cat .env"}, **_merge(ENV_LINK, deny("Read(./other)"))),
    _s("twin-write-long-name", "acceptEdits, Write a file whose name is 216 bytes (under the 255-byte limit)",
       "Write", _write("{cwd}/" + "n" * 212 + ".txt"), **ACCEPT),
    _s("twin-write-lookalike-name", "acceptEdits, Write `docs/claude-settings.json.md`",
       "Write", _write("{cwd}/docs/claude-settings.json.md"), **_merge({"dirs": ["proj/docs"]}, ACCEPT)),
    _s("twin-write-gitignore", "acceptEdits, Write `.gitignore`", "Write", _write("{cwd}/.gitignore"), **ACCEPT),
    _s("twin-read-cwd-brackets", "cwd `proj[1]`, deny `Read(./secret/**)`, Read `public.txt`",
       "Read", {"file_path": "{cwd}/public.txt"}, cwd="proj[1]",
       **_merge({"files": {"proj[1]/public.txt": "SECRET-public\n"}}, deny("Read(./secret/**)"))),
]
