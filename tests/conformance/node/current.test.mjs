// What the newest Claude TS SDK does differently, driven through its public API:
// external MCP servers, settings, tool rules and managed settings delivered inside
// `initialize` (launching dcl with --await-initialize), both ways where the SDK has a
// choice, and prewarm() spares claimed by the next query.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { prewarm, query } from '@anthropic-ai/claude-agent-sdk';
import { DCL, HELLO, HERE, Input, Reader, childEnv, collect, harness, mkTmp, results, within } from './lib.mjs';

const ECHO_SERVER = path.join(HERE, 'fixtures', 'echo-mcp.mjs');
const SECRET = 'echo-secret-7f3a';

const baseOptions = (cwd, extra = {}) => ({
  pathToClaudeCodeExecutable: DCL,
  model: 'mock-model',
  cwd,
  env: childEnv(),
  ...extra,
});

const { t, start } = harness('claude current', query);

const onlyResult = (msgs) => {
  const res = results(msgs);
  assert.equal(res.length, 1, `expected one result, got ${JSON.stringify(msgs)}`);
  return res[0];
};

/** The argv files dcl's recording wrapper wrote since `before` (empty when not recording). */
const argvSince = (before) => {
  const dir = process.env.DCL_TRACE_DIR;
  if (!dir || !fs.existsSync(dir)) return [];
  return fs.readdirSync(dir)
    .filter((f) => f.endsWith('.argv') && !before.has(f))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
};
const traceFiles = () => new Set(
  process.env.DCL_TRACE_DIR && fs.existsSync(process.env.DCL_TRACE_DIR)
    ? fs.readdirSync(process.env.DCL_TRACE_DIR) : [],
);

for (const delivery of ['initialize', 'argv']) {
  t(`mcpServers (${delivery} delivery): dcl runs the stdio server and the model's call reaches it`, async () => {
    const cwd = mkTmp();
    const log = path.join(cwd, 'calls.jsonl');
    const before = traceFiles();
    const msgs = await collect(start('FAKE_TOOL mcp__echo__echo {"text":"hi"}', baseOptions(cwd, {
      mcpServers: {
        echo: { command: process.execPath, args: [ECHO_SERVER], env: { ECHO_MCP_LOG: log, ECHO_SECRET: SECRET } },
      },
      mcpServersDelivery: delivery,
      allowedTools: ['mcp__echo__echo'],
    })), `query() with an external MCP server (${delivery})`);
    const r = onlyResult(msgs);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.equal(r.result, 'Done. The tool result had 8 chars.'); // "echo: hi"
    const calls = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(calls, [{ text: 'hi', secret: SECRET }]);
    const argv = argvSince(before);
    // Recording (the suites' default; DCL_RECORD=0 turns it off) must have seen this run.
    if (process.env.DCL_TRACE_DIR) assert.ok(argv.length > 0, 'the recording wrapper saw no dcl run');
    if (delivery === 'initialize' && argv.length > 0) {
      assert.ok(argv.some((a) => a.includes('--await-initialize')), argv.join('\n'));
      // The point of this delivery: the server's secrets never reach the command line.
      assert.ok(argv.every((a) => !a.includes(SECRET)), argv.join('\n'));
    }
  });
}

for (const delivery of ['initialize', 'argv']) {
  t(`managedSettings (${delivery} delivery): a managed deny rule wins over acceptEdits`, async () => {
    const cwd = mkTmp();
    const msgs = await collect(start('FAKE_WRITE out.txt', baseOptions(cwd, {
      permissionMode: 'acceptEdits',
      managedSettings: { permissions: { deny: ['Write'] } },
      managedSettingsDelivery: delivery,
    })), `query() with managed settings (${delivery})`);
    assert.ok(!fs.existsSync(path.join(cwd, 'out.txt')), 'the managed deny rule let Write run');
    const r = onlyResult(msgs);
    assert.ok((r.permission_denials ?? []).some((d) => d.tool_name === 'Write'), JSON.stringify(r));
  });
}

t('the positive twin: without managed settings acceptEdits writes the file', async () => {
  const cwd = mkTmp();
  const msgs = await collect(
    start('FAKE_WRITE out.txt', baseOptions(cwd, { permissionMode: 'acceptEdits' })),
    'query() under acceptEdits',
  );
  assert.equal(onlyResult(msgs).subtype, 'success');
  assert.ok(fs.existsSync(path.join(cwd, 'out.txt')), 'acceptEdits did not write');
});

t('settings and disallowedTools delivered in initialize are in force', async () => {
  const cwd = mkTmp();
  const viaSettings = await collect(start('FAKE_WRITE a.txt', baseOptions(cwd, {
    permissionMode: 'acceptEdits',
    settings: { permissions: { deny: ['Write(a.txt)'] } },
    settingsDelivery: 'initialize',
  })), 'query() with settings in initialize');
  assert.ok(!fs.existsSync(path.join(cwd, 'a.txt')), 'the delivered settings deny rule let Write run');
  assert.ok((onlyResult(viaSettings).permission_denials ?? []).some((d) => d.tool_name === 'Write'));

  const viaRules = await collect(start('FAKE_WRITE b.txt', baseOptions(cwd, {
    permissionMode: 'acceptEdits',
    disallowedTools: ['Write'],
    disallowedToolsDelivery: 'initialize',
  })), 'query() with disallowedTools in initialize');
  assert.ok(!fs.existsSync(path.join(cwd, 'b.txt')), 'the delivered disallowedTools let Write run');
  assert.equal(onlyResult(viaRules).subtype, 'success');
});

t('prewarm(): the spare is claimed by the next query and runs in the claimed folder', async () => {
  const park = mkTmp('dcl-conf-park-');
  const cwd = mkTmp();
  const spare = await within(prewarm({ options: baseOptions(park) }), 'prewarm()');
  try {
    const q = spare.claim({ prompt: 'say hi', options: { cwd } });
    const msgs = await collect(q, 'the claimed query');
    const claimed = await within(spare.claimed, 'spare.claimed');
    assert.equal(claimed.cwd, cwd, JSON.stringify(claimed));
    assert.ok(claimed.sessionId, JSON.stringify(claimed));
    const r = onlyResult(msgs);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.equal(r.result, HELLO);
    assert.equal(r.session_id, claimed.sessionId);
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
    assert.ok(init, JSON.stringify(msgs));
    assert.equal(fs.realpathSync(init.cwd), fs.realpathSync(cwd));
  } finally {
    spare.close();
  }
});

for (const delivery of ['initialize', 'argv']) {
  t(`plugins (${delivery} delivery): the plugin's command is loaded and listed`, async () => {
    const root = mkTmp();
    const kit = path.join(root, 'kit');
    fs.mkdirSync(path.join(kit, '.claude-plugin'), { recursive: true });
    fs.mkdirSync(path.join(kit, 'commands'), { recursive: true });
    fs.writeFileSync(path.join(kit, '.claude-plugin', 'plugin.json'), '{"name": "kit", "version": "1.0.0"}');
    fs.writeFileSync(path.join(kit, 'commands', 'greet.md'), '---\ndescription: Greet\n---\nsay hi to $ARGUMENTS\n');
    const cwd = mkTmp();
    const msgs = await collect(start('/kit:greet the team', baseOptions(cwd, {
      plugins: [{ type: 'local', path: kit }],
      pluginDelivery: delivery,
    })), `query() with a plugin (${delivery})`);
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
    assert.deepEqual((init?.plugins ?? []).map((p) => p.name), ['kit'], JSON.stringify(init));
    assert.ok((init?.slash_commands ?? []).includes('kit:greet'), JSON.stringify(init?.slash_commands));
    assert.equal(onlyResult(msgs).subtype, 'success');
  });
}

t('Interrupt hook (0.3.335): interrupt() of a slow turn calls it once; a turn that completes does not', async () => {
  const cwd = mkTmp();
  const seen = [];
  const input = new Input();
  const q = start(input, baseOptions(cwd, {
    includePartialMessages: true,
    hooks: { Interrupt: [{ hooks: [async (hookInput) => { seen.push(hookInput); return {}; }] }] },
  }));
  const reader = new Reader(q);
  input.push('FAKE_SLOW please');
  let interrupted;
  const interrupt = () => { interrupted ??= q.interrupt(); };
  const fallback = setTimeout(interrupt, 2000);
  let slow;
  try {
    slow = await reader.untilResult('the interrupted turn\'s result', (m) => {
      if (m.type === 'stream_event' || m.type === 'assistant') interrupt();
    });
  } finally {
    clearTimeout(fallback);
  }
  await within(interrupted, 'the interrupt control response', 15000);
  const r = results(slow)[0];
  assert.equal(r.subtype, 'error_during_execution', JSON.stringify(r));
  assert.equal(seen.length, 1, JSON.stringify(seen));
  assert.equal(seen[0].hook_event_name, 'Interrupt');
  assert.equal(seen[0].source, 'user');
  assert.equal(seen[0].reason, 'stop');
  assert.equal(seen[0].via, 'client');
  assert.equal(seen[0].session_id, r.session_id);

  // The positive twin: a turn that completes fires no Interrupt.
  input.push('say hi');
  const after = await reader.untilResult('the result after the interrupt');
  assert.equal(results(after)[0].subtype, 'success', JSON.stringify(results(after)));
  assert.equal(seen.length, 1, `a completed turn fired Interrupt: ${JSON.stringify(seen)}`);
  input.close();
  await reader.rest('end of stream after the input closed');
});
