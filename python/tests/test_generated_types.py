"""The options vocabulary is one schema: the package's mapping writes only keys of it, any key
of it can be set, and a key added to the Rust options reaches all three bindings' generated
types by regeneration alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

import dcl
from dcl._generated.options import OPTION_KEYS
from dcl._generated import protocol
from dcl.options import session_options

from conftest import MOCK, opts

ROOT = Path(__file__).resolve().parents[2]


def _every_field_set(workdir: Path) -> dcl.Options:
    """Options with every field given a value the mapping turns into a key."""
    return dcl.Options(
        model=MOCK,
        cwd=str(workdir),
        permission_mode="acceptEdits",
        allowed_tools=["Read"],
        disallowed_tools=["WebFetch"],
        tools=["Read", "Write"],
        system_prompt="be brief",
        append_system_prompt="and kind",
        max_turns=3,
        max_budget_usd=1.5,
        max_thinking_tokens=1024,
        effort="low",
        fallback_model="other",
        can_use_tool=lambda *a: None,
        mcp_servers={"ext": {"type": "stdio", "command": "true"}},
        strict_mcp_config=True,
        include_partial_messages=True,
        env={"X": "1"},
        add_dirs=[str(workdir)],
        extra_args={flag: "1" for flag in dcl.options._EXTRA_FLAGS},
        session_id="00000000-0000-4000-8000-000000000001",
        settings="{}",
        setting_sources=["project"],
        output_format={"type": "json_schema", "schema": {"type": "object"}},
        skills=["x"],
        continue_conversation=True,
        resume="00000000-0000-4000-8000-000000000002",
        fork_session=True,
        include_hook_events=True,
        persist_session=False,
        plugins=[{"type": "local", "path": str(workdir)}],
        dialect="qoder",
        host_timeout=5,
        mock_script=str(workdir / "script.json"),
        base_url="http://127.0.0.1:9",
        api_key="k",
        api_format="anthropic",
    )


def test_the_mapping_writes_only_keys_of_the_schema(workdir: Path) -> None:
    out = session_options(_every_field_set(workdir))
    unknown = sorted(set(out) - OPTION_KEYS)
    assert not unknown, f"the Python mapping writes keys the engine does not read: {unknown}"
    # The check can fail: a misspelt key in the mapping would be caught here.
    assert "maxTurns" in out and "maxTurn" not in OPTION_KEYS


def test_any_schema_key_can_be_set_and_a_misspelt_one_is_refused(workdir: Path) -> None:
    out = session_options(opts(workdir, dcl_options={"maxLineBytes": 4096, "inputQueue": 8}))
    assert out["maxLineBytes"] == 4096 and out["inputQueue"] == 8
    with pytest.raises(TypeError, match="maxLineByte"):
        session_options(opts(workdir, dcl_options={"maxLineByte": 1}))  # type: ignore[typeddict-unknown-key]
    # The engine takes it: a session opens with a key only dcl_options can set.
    messages = list(dcl.query_sync(prompt="hi", options=opts(workdir, dcl_options={"outboxLines": 64})))
    assert isinstance(messages[-1], dcl.ResultMessage)


def test_generated_protocol_types_import_and_name_every_line_type() -> None:
    for name in ("AssistantMessage", "UserMessage", "ResultMessage", "HookOutput", "Message"):
        assert hasattr(protocol, name), name


def test_committed_generated_files_are_current() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_types.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_a_new_option_reaches_every_binding_by_regeneration(tmp_path: Path) -> None:
    schema: Dict[str, Any] = json.loads(
        (ROOT / "core/bridge/schema/session-options.schema.json").read_text()
    )
    schema["properties"]["zzScratchOption"] = {
        "type": ["integer", "null"],
        "description": "An option added in a scratch copy.",
    }
    scratch = tmp_path / "session-options.schema.json"
    scratch.write_text(json.dumps(schema, indent=2))
    out = tmp_path / "out"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_types.py"), "--options-schema", str(scratch), "--out", str(out)],
        check=True,
    )
    py = (out / "python/src/dcl/_generated/options.py").read_text()
    assert "zzScratchOption: Optional[int]" in py and '"zzScratchOption",' in py
    java = (out / "java/src/main/java/nexus/io/agent/sdk/generated/SessionOptionKeys.java").read_text()
    assert 'public static final String ZZ_SCRATCH_OPTION = "zzScratchOption";' in java
    go = (out / "go/options_gen.go").read_text()
    assert 'OptionZzScratchOption' in go and '"zzScratchOption"' in go
    node_modules = ROOT / "node/node_modules/json-schema-to-typescript"
    if not node_modules.exists():
        if os.environ.get("CI"):
            pytest.fail("node/node_modules is missing: run bash tests/setup.sh")
        pytest.skip("node/node_modules not installed (bash tests/setup.sh)")
    ts_out = tmp_path / "ts"
    subprocess.run(
        ["node", str(ROOT / "node/scripts/gen-types.mjs")],
        check=True,
        env={**os.environ, "DCL_OPTIONS_SCHEMA": str(scratch), "DCL_TYPES_OUT": str(ts_out)},
    )
    ts = (ts_out / "options.ts").read_text()
    assert "zzScratchOption?: number | null;" in ts and '"zzScratchOption"' in ts
    # And the committed files do not have it: the scratch copy changed nothing in the tree.
    assert "zzScratchOption" not in (ROOT / "python/src/dcl/_generated/options.py").read_text()
