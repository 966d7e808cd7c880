"""Session options: claude-agent-sdk's field names, turned into dcl's options JSON.

:class:`Options` uses claude-agent-sdk's ``ClaudeAgentOptions`` field names. The few
qoder-agent-sdk Python names that differ (``plan_mode``, ``allow_dangerously_skip_permissions``,
``control_request_timeout_ms``) are fields too, and :meth:`Options.from_any` also accepts
the camelCase names of the TypeScript SDKs (``allowedTools``, ``permissionMode``,
``additionalDirectories``...), plain mappings, and ``ClaudeAgentOptions`` /
``QoderAgentOptions`` instances.

dcl validates the result once, in Rust: a bad value raises
:class:`~dcl.InvalidOptionsError` when the session opens.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from ._errors import CLIConnectionError
from ._generated.options import OPTION_KEYS, SessionOptionsJson
from .types import CanUseTool, HookMatcher

PathLike = Union[str, "os.PathLike[str]"]

# Options has more fields than an instance dict can share keys for (30), so without slots
# every instance carries its own ~2 KB dict; a server opening thousands of sessions keeps
# one per session. Slotted from Python 3.11 (``weakref_slot`` keeps instances weakly
# referenceable, as before); on older versions the class stays as it was.
_SLOTS: Dict[str, Any] = {"slots": True, "weakref_slot": True} if sys.version_info >= (3, 11) else {}


@dataclass(**_SLOTS)
class Options:
    """How a session is opened. Field names are claude-agent-sdk's."""

    model: Optional[str] = None
    """Model id; ``"mock-model"`` is dcl's built-in offline model."""
    cwd: Optional[PathLike] = None
    """Working directory of the session's tools (default: this process's)."""
    permission_mode: Optional[str] = None
    """``default``, ``acceptEdits``, ``plan``, ``bypassPermissions`` or ``dontAsk``."""
    allowed_tools: List[str] = field(default_factory=list)
    """Rules that run unasked (``Bash(git status:*)``, ``mcp__calc__add``...)."""
    disallowed_tools: List[str] = field(default_factory=list)
    """Rules that are refused; a whole-tool rule hides the tool."""
    tools: Union[List[str], Dict[str, Any], None] = None
    """Restricts the built-in tools (``[]``: none; a preset dict: all)."""
    system_prompt: Union[str, Dict[str, Any], None] = None
    """``None`` or ``""``: no system prompt (as with claude-agent-sdk); a string; or
    ``{"type": "preset", "append": ...}``, ``{"type": "custom", "prompt": ...}``,
    ``{"type": "file", "path": ...}``."""
    append_system_prompt: Optional[str] = None
    """Text appended to the system prompt."""
    max_turns: Optional[int] = None
    max_budget_usd: Optional[float] = None
    max_thinking_tokens: Optional[int] = None
    thinking: Optional[Dict[str, Any]] = None
    """``{"type": "enabled", "budget_tokens": N}`` sets the thinking budget."""
    effort: Optional[str] = None
    fallback_model: Optional[str] = None
    can_use_tool: Optional[CanUseTool] = None
    """``can_use_tool(tool_name, input, context)`` approves or denies tool calls."""
    permission_prompt_tool_name: Optional[str] = None
    hooks: Optional[Dict[str, List[HookMatcher]]] = None
    """``{"PreToolUse": [HookMatcher(matcher="Bash", hooks=[fn])]}``."""
    mcp_servers: Union[Dict[str, Any], PathLike, None] = field(default_factory=dict)
    """MCP servers by name: stdio/http/sse configs, or in-process ones from
    :func:`dcl.create_sdk_mcp_server`. A string or path is an MCP config file or JSON."""
    strict_mcp_config: bool = False
    include_partial_messages: bool = False
    """Also yield :class:`~dcl.StreamEvent` messages as the model streams."""
    env: Dict[str, Optional[str]] = field(default_factory=dict)
    """Added to this process's environment for the session and its tools (``None``
    removes a variable)."""
    add_dirs: List[PathLike] = field(default_factory=list)
    extra_args: Dict[str, Optional[str]] = field(default_factory=dict)
    """CLI flags without a field (``{"replay-user-messages": None}``); flags dcl does not
    act on are reported as warnings."""
    session_id: Optional[str] = None
    settings: Optional[str] = None
    setting_sources: Optional[List[str]] = None
    output_format: Optional[Dict[str, Any]] = None
    """``{"type": "json_schema", "schema": {...}}`` for structured output."""
    agents: Optional[Dict[str, Any]] = None
    agent: Optional[str] = None
    """The main thread runs as this agent (one of ``agents`` or a file-defined one)."""
    forward_subagent_text: bool = False
    """Subagents' text reaches this stream too (with ``parent_tool_use_id``)."""
    plugins: List[Dict[str, Any]] = field(default_factory=list)
    """Plugin folders, ``[{"type": "local", "path": ...}]`` (as ``--plugin-dir``)."""
    persist_session: bool = True
    """``False``: no transcript is written."""
    skills: Union[List[str], str, None] = None
    continue_conversation: bool = False
    resume: Optional[str] = None
    fork_session: bool = False
    include_hook_events: bool = False
    enable_file_checkpointing: Optional[bool] = None
    # qoder-agent-sdk names
    plan_mode: Optional[bool] = None
    """Qoder: ``True`` is ``permission_mode="plan"``."""
    allow_dangerously_skip_permissions: bool = False
    """Qoder: ``True`` without a ``permission_mode`` is ``bypassPermissions``."""
    control_request_timeout_ms: int = 60_000
    """Qoder: how long a control request to dcl may take."""
    # dcl's own
    dialect: Optional[str] = None
    """``"claude"`` (default) or ``"qoder"``: which SDK's protocol flavour to speak."""
    host_timeout: Optional[float] = None
    """Seconds dcl waits for a ``can_use_tool`` / hook / MCP answer (default 300)."""
    mock_script: Optional[PathLike] = None
    base_url: Optional[str] = None
    api_key: Optional[str] = None
    api_format: Optional[str] = None
    session_store: Any = None
    """dcl's session store, where sessions are drained and resumed from: a URL
    (``postgres://…``, ``redis://…``, ``file:/dir``) or a :class:`dcl.store.DclSessionStore`.
    Another SDK's ``SessionStore`` object is not acted on (a warning says so)."""
    cli_path: Optional[PathLike] = None
    """Run the session in this ``dcl`` executable, a child process driven by the same Rust
    host over its stdio (``DCL_CLI_PATH`` sets a default): callbacks, hooks, in-process MCP
    servers and every option behave as in process. Other SDKs' ``cli_path`` (their own
    CLI) is not taken over by :meth:`from_any`."""
    dcl_options: Optional[SessionOptionsJson] = None
    """Keys of dcl's options JSON set directly (the generated ``SessionOptionsJson``: every
    option the engine reads, including ones without a field here). They win over the
    fields; a key the engine does not know raises ``TypeError``."""

    @classmethod
    def from_any(cls, source: Any = None, **overrides: Any) -> "Options":
        """Builds options from ``None``, an :class:`Options`, a mapping (snake_case or
        camelCase keys), or another SDK's options object (``ClaudeAgentOptions``,
        ``QoderAgentOptions``). Keyword arguments override. Fields dcl has no use for
        (``cli_path``, ``stderr``...) are dropped; unknown mapping keys raise
        ``TypeError``."""
        if isinstance(source, Options) and not overrides:
            return source
        values: Dict[str, Any] = {}
        strict = True
        if source is None:
            pass
        elif isinstance(source, Options):
            values = {f.name: getattr(source, f.name) for f in dataclasses.fields(Options)}
        elif isinstance(source, Mapping):
            values = dict(source)
        elif dataclasses.is_dataclass(source):
            values = {f.name: getattr(source, f.name) for f in dataclasses.fields(source)}
            strict = False
        else:
            raise TypeError(f"cannot read options from {type(source).__name__}")
        values.update(overrides)
        known = {f.name for f in dataclasses.fields(cls)}
        if not strict:
            # Another SDK's cli_path names its own CLI (claude, qodercli), not dcl.
            values.pop("cli_path", None)
        out: Dict[str, Any] = {}
        dropped: List[str] = []
        for key, value in values.items():
            name = _ALIASES.get(key, key)
            if name in known:
                out[name] = value
            elif name in _IGNORED or not strict:
                if name not in _IGNORED and value not in (None, False, [], {}, ""):
                    dropped.append(key)
            else:
                raise TypeError(f"unknown option {key!r}")
        if dropped:
            warnings.warn(f"dcl ignores these options: {', '.join(sorted(dropped))}", stacklevel=2)
        return cls(**out)


_ALIASES: Dict[str, str] = {
    "allowedTools": "allowed_tools",
    "disallowedTools": "disallowed_tools",
    "permissionMode": "permission_mode",
    "systemPrompt": "system_prompt",
    "appendSystemPrompt": "append_system_prompt",
    "maxTurns": "max_turns",
    "maxBudgetUsd": "max_budget_usd",
    "maxThinkingTokens": "max_thinking_tokens",
    "fallbackModel": "fallback_model",
    "canUseTool": "can_use_tool",
    "permissionPromptToolName": "permission_prompt_tool_name",
    "mcpServers": "mcp_servers",
    "strictMcpConfig": "strict_mcp_config",
    "includePartialMessages": "include_partial_messages",
    "additionalDirectories": "add_dirs",
    "addDirs": "add_dirs",
    "extraArgs": "extra_args",
    "sessionId": "session_id",
    "settingSources": "setting_sources",
    "outputFormat": "output_format",
    "continue": "continue_conversation",
    "continueConversation": "continue_conversation",
    "forkSession": "fork_session",
    "forwardSubagentText": "forward_subagent_text",
    "persistSession": "persist_session",
    "includeHookEvents": "include_hook_events",
    "enableFileCheckpointing": "enable_file_checkpointing",
    "planMode": "plan_mode",
    "allowDangerouslySkipPermissions": "allow_dangerously_skip_permissions",
    "controlRequestTimeoutMs": "control_request_timeout_ms",
    "hostTimeout": "host_timeout",
    "mockScript": "mock_script",
    "baseUrl": "base_url",
    "apiKey": "api_key",
    "apiFormat": "api_format",
    "dclOptions": "dcl_options",
    "cliPath": "cli_path",
    "sessionStore": "session_store",
}

# Other SDKs' fields that make no sense in-process (no child process, no CLI binary).
_IGNORED = {
    "pathToClaudeCodeExecutable",
    "executable",
    "executableArgs",
    "stderr",
    "debug_stderr",
    "max_buffer_size",
    "user",
    "abortController",
    "spawnClaudeCodeProcess",
    "session_store_flush",
    "load_timeout_ms",
    "client_app",
    "verbatim_prompts",
}

# Flags dcl knows (same spelling as its CLI) that extra_args may carry.
_EXTRA_FLAGS: Dict[str, Tuple[str, str]] = {
    "replay-user-messages": ("replayUserMessages", "flag"),
    "include-partial-messages": ("includePartialMessages", "flag"),
    "include-hook-events": ("includeHookEvents", "flag"),
    "mock-script": ("mockScript", "str"),
    "api-format": ("apiFormat", "str"),
    "base-url": ("baseUrl", "str"),
    "fallback-model": ("fallbackModel", "str"),
    "model": ("model", "str"),
    "session-id": ("sessionId", "str"),
    "resume-session-at": ("resumeSessionAt", "str"),
    "resume-drops-turn": ("resumeDropsTurn", "str"),
    "session-mirror": ("sessionMirror", "flag"),
    "data-dir": ("dataDir", "str"),
    "no-session-persistence": ("persistSession", "off"),
    "max-turns": ("maxTurns", "int"),
    "max-thinking-tokens": ("maxThinkingTokens", "int"),
    "host-timeout": ("hostTimeoutSecs", "float"),
    "permission-mode": ("permissionMode", "str"),
    "append-system-prompt": ("appendSystemPrompt", "str"),
    "system-prompt": ("systemPrompt", "str"),
}


def has_sdk_server(config: Any) -> bool:
    """Whether an ``mcp_servers`` entry is an in-process server."""
    return isinstance(config, Mapping) and config.get("type") == "sdk"


def sdk_servers(opts: Options) -> Dict[str, Any]:
    """In-process MCP servers by name (their ``instance``)."""
    if not isinstance(opts.mcp_servers, Mapping):
        return {}
    return {
        name: cfg.get("instance")
        for name, cfg in opts.mcp_servers.items()
        if has_sdk_server(cfg)
    }


def _system_prompt(opts: Options, out: Dict[str, Any]) -> None:
    sp = opts.system_prompt
    append = opts.append_system_prompt
    if sp is None or isinstance(sp, str):
        out["systemPrompt"] = sp or ""
    elif isinstance(sp, Mapping):
        kind = sp.get("type")
        if kind == "custom":
            out["systemPrompt"] = str(sp.get("prompt", ""))
        elif kind == "file":
            path = os.path.join(os.fspath(opts.cwd or "."), os.fspath(sp.get("path", "")))
            with open(path, encoding="utf-8") as f:
                out["systemPrompt"] = f.read()
        elif kind == "preset":
            if sp.get("append"):
                append = f"{sp['append']}\n\n{append}" if append else str(sp["append"])
        else:
            raise ValueError(f"unknown system_prompt type {kind!r}")
    else:
        raise TypeError("system_prompt must be a string or a dict")
    if append:
        out["appendSystemPrompt"] = append


def _extra_args(opts: Options, out: Dict[str, Any], ignored: List[str]) -> None:
    for flag, value in opts.extra_args.items():
        name = flag.lstrip("-")
        known = _EXTRA_FLAGS.get(name)
        if known is None:
            ignored.append(f"--{name}")
            continue
        key, kind = known
        if kind == "flag":
            out[key] = True
        elif kind == "off":
            out[key] = False
        elif value is None:
            raise ValueError(f"extra_args[{flag!r}] needs a value")
        elif kind == "int":
            out[key] = int(value)
        elif kind == "float":
            out[key] = float(value)
        else:
            out[key] = str(value)


def session_options(
    opts: Options, *, sdk_servers_in_mcp_config: bool = False, base_env: Optional[Mapping[str, str]] = None
) -> Dict[str, Any]:
    """The options JSON (as a dict) for ``dcl._native.open``.

    Every option claude-agent-sdk turns into a CLI flag has its key here. Keys are only
    written when set, so defaults stay dcl's. With ``sdk_servers_in_mcp_config``,
    in-process servers are listed in ``mcpConfig`` as ``{"type": "sdk", "name": ...}``
    (what claude-agent-sdk passes as ``--mcp-config``); otherwise they are announced in
    the ``initialize`` request's ``sdkMcpServers``.
    """
    if opts.can_use_tool is not None and opts.permission_prompt_tool_name not in (None, "", "stdio"):
        raise ValueError(
            "can_use_tool callback cannot be used with permission_prompt_tool_name. "
            "Please use one or the other."
        )
    out: Dict[str, Any] = {"outputFormat": "stream-json", "legacyEvents": False}
    ignored: List[str] = []

    env: Dict[str, str] = dict(os.environ if base_env is None else base_env)
    for k, v in opts.env.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = str(v)
    if opts.cwd is not None:
        cwd = os.path.abspath(os.fspath(opts.cwd))
        out["cwd"] = cwd
        env["PWD"] = cwd
    if opts.enable_file_checkpointing:
        env["CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"] = "true"
    out["env"] = env

    if opts.model is not None:
        out["model"] = opts.model
    if opts.fallback_model is not None:
        out["fallbackModel"] = opts.fallback_model
    _system_prompt(opts, out)

    mode = opts.permission_mode
    if opts.plan_mode:
        mode = "plan"
    elif mode is None and opts.allow_dangerously_skip_permissions:
        mode = "bypassPermissions"
    if mode is not None:
        out["permissionMode"] = mode
    if opts.can_use_tool is not None:
        out["permissionPromptTool"] = "stdio"
    elif opts.permission_prompt_tool_name:
        out["permissionPromptTool"] = opts.permission_prompt_tool_name

    allowed = list(opts.allowed_tools)
    if opts.skills == "all":
        allowed.append("Skill")
    elif isinstance(opts.skills, list):
        allowed.extend(f"Skill({s})" for s in opts.skills)
    if allowed:
        out["allowedTools"] = allowed
    if opts.disallowed_tools:
        out["disallowedTools"] = list(opts.disallowed_tools)
    if isinstance(opts.tools, list):
        out["tools"] = list(opts.tools)
    elif isinstance(opts.tools, Mapping):
        out["tools"] = ["default"]

    if opts.max_turns:
        out["maxTurns"] = int(opts.max_turns)
    if opts.max_budget_usd is not None:
        out["maxBudgetUsd"] = float(opts.max_budget_usd)
    if opts.effort is not None:
        out["effort"] = opts.effort
    thinking = opts.thinking
    if isinstance(thinking, Mapping):
        if thinking.get("type") == "enabled" and thinking.get("budget_tokens") is not None:
            out["maxThinkingTokens"] = int(thinking["budget_tokens"])
        else:
            ignored.append("--thinking")
    elif opts.max_thinking_tokens is not None:
        out["maxThinkingTokens"] = int(opts.max_thinking_tokens)

    if opts.add_dirs:
        out["addDirs"] = [os.fspath(d) for d in opts.add_dirs]
    if opts.include_partial_messages:
        out["includePartialMessages"] = True
    if opts.session_id is not None:
        out["sessionId"] = opts.session_id
    if opts.resume:
        out["resume"] = opts.resume
    if opts.continue_conversation:
        out["continueConversation"] = True
    if opts.fork_session:
        out["forkSession"] = True
    if opts.settings is not None:
        out["settings"] = opts.settings
    if opts.setting_sources is not None:
        out["settingSources"] = list(opts.setting_sources)
    if isinstance(opts.output_format, Mapping) and opts.output_format.get("type") == "json_schema":
        out["jsonSchema"] = opts.output_format.get("schema")

    servers = opts.mcp_servers
    if isinstance(servers, Mapping):
        config: Dict[str, Any] = {}
        for name, cfg in servers.items():
            if has_sdk_server(cfg):
                if sdk_servers_in_mcp_config:
                    config[name] = {"type": "sdk", "name": name}
            else:
                config[name] = dict(cfg)
        if config:
            out["mcpConfig"] = [json.dumps({"mcpServers": config})]
    elif servers:
        out["mcpConfig"] = [os.fspath(servers)]
    if opts.strict_mcp_config:
        out["strictMcpConfig"] = True

    if opts.dialect is not None:
        out["dialect"] = opts.dialect
    if opts.host_timeout is not None:
        out["hostTimeoutSecs"] = float(opts.host_timeout)
    if opts.mock_script is not None:
        out["mockScript"] = os.fspath(opts.mock_script)
    if opts.base_url is not None:
        out["baseUrl"] = opts.base_url
    if opts.api_key is not None:
        out["apiKey"] = opts.api_key
    if opts.api_format is not None:
        out["apiFormat"] = opts.api_format

    if opts.include_hook_events:
        out["includeHookEvents"] = True
    if not opts.persist_session:
        out["persistSession"] = False
    if opts.plugins:
        dirs = []
        for p in opts.plugins:
            if not isinstance(p, Mapping) or p.get("type") != "local" or not isinstance(p.get("path"), (str, os.PathLike)):
                raise ValueError(f'plugins: only {{"type": "local", "path": ...}} plugins are supported, not {p!r}')
            dirs.append(os.path.abspath(os.path.join(os.fspath(opts.cwd or "."), os.fspath(p["path"]))))
        out["pluginDirs"] = dirs
    store = opts.session_store
    if isinstance(store, str):
        out["sessionStore"] = store
    elif isinstance(getattr(store, "dcl_url", None), str):
        out["sessionStore"] = store.dcl_url
    elif store is not None:
        warnings.warn(
            f"dcl does not act on a {type(store).__name__} session store: give a store URL or "
            "a dcl.store.DclSessionStore, which dcl drains sessions to itself",
            stacklevel=2,
        )
        ignored.append("session_store")
    _extra_args(opts, out, ignored)
    if opts.dcl_options:
        unknown = sorted(k for k in opts.dcl_options if k not in OPTION_KEYS)
        if unknown:
            raise TypeError(f"dcl_options: unknown option(s) {', '.join(map(repr, unknown))}")
        out.update(opts.dcl_options)
    if ignored:
        out["ignoredFlags"] = ignored + list(out.get("ignoredFlags") or [])
    return out


__all__ = ["Options", "sdk_servers", "session_options"]
