// Issue 3 scenarios, run against one SDK's public API (query, tool, createSdkMcpServer and
// the Query control methods). claude.test.mjs and qoder.test.mjs call defineFeatures().
//
//   f. PreToolUse hook denies Bash         g. PreToolUse hook rewrites Write input
//   h. SDK MCP tool call (+ mcpServerStatus)  i. includePartialMessages stream events
//   j. setModel / setPermissionMode        k. getContextUsage
//   l. structured output (outputFormat)
//
// SDK MCP servers are still being wired into dcl: the h-tests are `todo` (reported, not
// counted as failures) until they are; DCL_EXPECT_SDK_MCP=1 runs them as ordinary tests.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  DONE_RE, HELLO, Input, Reader, assistantTexts, collect, harness, mkTmp, results, within,
} from './lib.mjs';

const TOUCH_COMMAND = 'touch made.txt && echo made'; // what the mock runs for FAKE_TOUCH

const QODER_CATEGORY_TYPES = new Set([
  'system_prompt', 'system_tools', 'skills', 'messages', 'other', 'free_space', 'auto_compact',
]);

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer' },
    ok: { type: 'boolean' },
    color: { type: 'string', enum: ['red', 'green'] },
  },
  required: ['name', 'count', 'ok', 'color'],
  additionalProperties: false,
};
/** The mock's example instance of SCHEMA. */
const SCHEMA_EXAMPLE = { name: 'example', count: 1, ok: true, color: 'red' };

const onlyResult = (msgs) => {
  const res = results(msgs);
  assert.equal(res.length, 1, `expected one result, got ${JSON.stringify(msgs)}`);
  return res[0];
};
const inits = (msgs) => msgs.filter((m) => m.type === 'system' && m.subtype === 'init');
const lastInit = (msgs, what) => {
  const all = inits(msgs);
  assert.ok(all.length, `no system/init in ${what}: ${JSON.stringify(msgs)}`);
  return all[all.length - 1];
};
const preToolUse = (fields) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...fields } });

/**
 * @param {string} label  test-name prefix
 * @param {object} sdk    { query, tool, createSdkMcpServer } of the SDK
 * @param {(cwd: string) => object} baseOptions  SDK options pointing at dcl
 * @param {object} caps   { contextUsage: 'claude' | 'qoder', categoryKind: bool,
 *                          structuredOutput: true | skip reason }
 */
export function defineFeatures(label, sdk, baseOptions, caps) {
  const opts = (cwd, extra = {}) => ({ ...baseOptions(cwd), ...extra });
  const { t, start } = harness(label, sdk.query);

  /** A streaming-input session: `turn(prompt)` sends one prompt and reads to its result. */
  const session = (options) => {
    const input = new Input();
    const q = start(input, options);
    const reader = new Reader(q);
    return {
      q,
      turn: (prompt, what) => {
        input.push(prompt);
        return reader.untilResult(what);
      },
      end: async () => {
        input.close();
        await reader.rest('end of stream after the input closed');
      },
    };
  };

  t('f. PreToolUse hook denies Bash: no file, denial listed, hook saw the command', async () => {
    const cwd = mkTmp();
    const seen = [];
    const hooks = {
      PreToolUse: [{
        matcher: 'Bash',
        hooks: [async (input, toolUseID) => {
          seen.push({ input, toolUseID });
          return preToolUse({
            permissionDecision: 'deny', permissionDecisionReason: 'blocked by the conformance hook',
          });
        }],
      }],
    };
    const msgs = await collect(
      start('please FAKE_TOUCH', opts(cwd, { hooks, permissionMode: 'bypassPermissions' })),
      'query() with a denying hook',
    );
    assert.equal(seen.length, 1, `hook calls: ${JSON.stringify(seen)}`);
    const { input, toolUseID } = seen[0];
    assert.equal(input.hook_event_name, 'PreToolUse', JSON.stringify(input));
    assert.equal(input.tool_name, 'Bash', JSON.stringify(input));
    assert.equal(input.tool_input?.command, TOUCH_COMMAND, JSON.stringify(input));
    assert.ok(toolUseID, 'the hook got no toolUseID');
    assert.equal(input.tool_use_id, toolUseID);

    assert.ok(!fs.existsSync(path.join(cwd, 'made.txt')), 'the hook denied Bash but made.txt exists');
    const r = onlyResult(msgs);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    const denials = r.permission_denials;
    assert.ok(Array.isArray(denials) && denials.length === 1,
      `permission_denials: ${JSON.stringify(denials)}`);
    assert.equal(denials[0].tool_name, 'Bash');
    assert.equal(denials[0].tool_use_id, toolUseID);
    assert.equal(denials[0].tool_input?.command, TOUCH_COMMAND);
  });

  t('g. PreToolUse hook rewrites the Write input: the file has the new content', async () => {
    const cwd = mkTmp();
    const target = path.join(cwd, 'hello.txt');
    const rewritten = 'rewritten by the conformance hook\n';
    const seen = [];
    const asked = [];
    const hooks = {
      PreToolUse: [{
        matcher: 'Write',
        hooks: [async (input) => {
          seen.push(input);
          return preToolUse({
            permissionDecision: 'allow', updatedInput: { ...input.tool_input, content: rewritten },
          });
        }],
      }],
    };
    const canUseTool = async (toolName, input) => {
      asked.push(toolName);
      return { behavior: 'allow', updatedInput: input };
    };
    const s = session(opts(cwd, { hooks, canUseTool, permissionMode: 'default' }));
    const msgs = await s.turn(`please FAKE_WRITE ${target}`, 'the Write turn');
    await s.end();

    assert.deepEqual(seen.map((i) => i.tool_name), ['Write']);
    assert.deepEqual(seen[0].tool_input, { file_path: target, content: 'hello\n' });
    assert.ok(fs.existsSync(target), 'Write did not run');
    assert.equal(fs.readFileSync(target, 'utf8'), rewritten, "the hook's updatedInput was not used");
    assert.deepEqual(asked, [], 'the hook allowed Write, yet canUseTool was asked');
    const r = onlyResult(msgs);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.deepEqual(r.permission_denials ?? [], []);
    assert.match(r.result, DONE_RE);
  });

  const calcServer = (calls) => sdk.createSdkMcpServer({
    name: 'calc',
    version: '1.0.0',
    tools: [
      sdk.tool('add', 'Add two integers', { a: z.number().int(), b: z.number().int() }, async (args) => {
        calls.push(args);
        return { content: [{ type: 'text', text: String(args.a + args.b) }] };
      }),
    ],
  });

  t('h1. SDK MCP tool (createSdkMcpServer + tool) is called with the model\'s args', async () => {
    const cwd = mkTmp();
    const calls = [];
    const s = session(opts(cwd, {
      mcpServers: { calc: calcServer(calls) },
      allowedTools: ['mcp__calc__add'],
    }));
    const msgs = await s.turn('FAKE_TOOL mcp__calc__add {"a":2,"b":3}', 'the MCP tool turn');
    await s.end();
    assert.deepEqual(calls, [{ a: 2, b: 3 }], `tool handler calls; messages: ${JSON.stringify(msgs)}`);
    const r = onlyResult(msgs);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.deepEqual(r.permission_denials ?? [], []);
    assert.equal(r.result, 'Done. The tool result had 1 chars.'); // "5"
  });

  t('h2. mcpServerStatus() lists the SDK server as connected', async () => {
    const cwd = mkTmp();
    const s = session(opts(cwd, { mcpServers: { calc: calcServer([]) } }));
    const status = await within(s.q.mcpServerStatus(), 'mcpServerStatus()');
    await s.end();
    const calc = status.find((e) => e.name === 'calc');
    assert.ok(calc, `mcpServerStatus: ${JSON.stringify(status)}`);
    assert.equal(calc.status, 'connected', JSON.stringify(calc));
    assert.ok((calc.tools ?? []).some((tl) => tl.name === 'add'), JSON.stringify(calc));
  });

  t('i. includePartialMessages: content_block_delta events before the assistant message', async () => {
    const cwd = mkTmp();
    const msgs = await collect(
      start('say hi', opts(cwd, { includePartialMessages: true })), 'query() with partial messages',
    );
    const firstAssistant = msgs.findIndex((m) => m.type === 'assistant');
    assert.ok(firstAssistant >= 0, `no assistant message: ${JSON.stringify(msgs)}`);
    const before = msgs.slice(0, firstAssistant).filter((m) => m.type === 'stream_event');
    const kinds = before.map((m) => m.event?.type);
    assert.ok(kinds.includes('message_start'), `stream events before the assistant message: ${kinds}`);
    const deltas = before
      .filter((m) => m.event?.type === 'content_block_delta' && m.event.delta?.type === 'text_delta')
      .map((m) => m.event.delta.text);
    assert.ok(deltas.length, `no content_block_delta before the assistant message: ${kinds}`);
    assert.ok(kinds.indexOf('message_start') < kinds.indexOf('content_block_delta'), String(kinds));
    assert.equal(deltas.join(''), HELLO);
    assert.deepEqual(assistantTexts([msgs[firstAssistant]]), [HELLO]);
    const r = onlyResult(msgs);
    assert.equal(r.result, HELLO);
    for (const m of msgs.filter((x) => x.type === 'stream_event')) {
      assert.equal(m.session_id, r.session_id);
      assert.ok(m.uuid, 'stream_event without uuid');
    }
  });

  t('j1. setModel("mock-other"): the next system/init and assistant report it', async () => {
    const cwd = mkTmp();
    const s = session(opts(cwd));
    const first = await s.turn('say hi', 'the first turn');
    await within(s.q.setModel('mock-other'), 'setModel()');
    const second = await s.turn('say hi', 'the turn after setModel');
    await s.end();
    assert.equal(lastInit(first, 'the first turn').model, 'mock-model');
    assert.equal(lastInit(second, 'the turn after setModel').model, 'mock-other');
    const models = second.filter((m) => m.type === 'assistant').map((m) => m.message?.model);
    assert.ok(models.length && models.every((m) => m === 'mock-other'), JSON.stringify(models));
    const r = onlyResult(second);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.equal(r.result, HELLO);
  });

  t('j2. setPermissionMode: bypassPermissions runs unasked, plan refuses', async () => {
    const cwd = mkTmp();
    const made = path.join(cwd, 'made.txt');
    const asked = [];
    // Allows: whatever stops the command in plan mode is plan mode itself.
    const canUseTool = async (toolName, input) => {
      asked.push({ toolName, input });
      return { behavior: 'allow', updatedInput: input };
    };
    const s = session(opts(cwd, { canUseTool, permissionMode: 'default' }));
    await within(s.q.setPermissionMode('bypassPermissions'), 'setPermissionMode()');
    const bypass = await s.turn('please FAKE_TOUCH', 'the bypassPermissions turn');
    const bypassAsked = [...asked];
    const bypassMade = fs.existsSync(made);
    fs.rmSync(made, { force: true });
    await within(s.q.setPermissionMode('plan'), "setPermissionMode('plan')");
    const plan = await s.turn('please FAKE_TOUCH', 'the plan-mode turn');
    await s.end();

    assert.equal(lastInit(bypass, 'the bypassPermissions turn').permissionMode, 'bypassPermissions');
    assert.deepEqual(bypassAsked, [], 'bypassPermissions, yet canUseTool was asked');
    assert.ok(bypassMade, 'bypassPermissions: made.txt was not created');
    const r1 = onlyResult(bypass);
    assert.equal(r1.subtype, 'success', JSON.stringify(r1));
    assert.deepEqual(r1.permission_denials ?? [], []);

    assert.equal(lastInit(plan, 'the plan-mode turn').permissionMode, 'plan');
    assert.ok(!fs.existsSync(made), 'plan mode ran the command (made.txt exists)');
    const denials = onlyResult(plan).permission_denials;
    assert.deepEqual((denials ?? []).map((d) => d.tool_name), ['Bash'], JSON.stringify(denials));
  });

  t('k. getContextUsage(): categories, and usage grows after a turn', async () => {
    const cwd = mkTmp();
    const s = session(opts(cwd));
    const before = await within(s.q.getContextUsage(), 'getContextUsage() before a turn');
    await s.turn('say hi', 'a turn');
    const after = await within(s.q.getContextUsage(), 'getContextUsage() after a turn');
    await s.end();
    for (const u of [before, after]) {
      assert.ok(Array.isArray(u.categories) && u.categories.length,
        `no categories: ${JSON.stringify(u)}`);
      assert.equal(u.model, 'mock-model', JSON.stringify(u));
    }
    if (caps.contextUsage === 'claude') {
      for (const u of [before, after]) {
        for (const c of u.categories) {
          assert.ok(typeof c.name === 'string' && Number.isInteger(c.tokens), JSON.stringify(c));
        }
        assert.ok(Number.isInteger(u.totalTokens) && u.totalTokens > 0, JSON.stringify(u));
        assert.ok(u.maxTokens > 0, JSON.stringify(u));
      }
      assert.ok(after.totalTokens > before.totalTokens,
        `totalTokens did not grow after a turn: ${before.totalTokens} -> ${after.totalTokens}`);
    } else {
      // SDKControlGetContextUsageResponse of the Qoder SDK: percentages, not token counts.
      for (const u of [before, after]) {
        for (const c of u.categories) {
          assert.ok(QODER_CATEGORY_TYPES.has(c.type) && typeof c.percentage === 'number',
            `category ${JSON.stringify(c)} in ${JSON.stringify(u)}`);
        }
        assert.equal(typeof u.contextWindow?.usedPercentage, 'number',
          `no contextWindow.usedPercentage: ${JSON.stringify(u)}`);
        assert.ok(Number.isInteger(u.session?.promptCount),
          `no session.promptCount: ${JSON.stringify(u)}`);
      }
      assert.ok(after.contextWindow.usedPercentage > before.contextWindow.usedPercentage,
        'contextWindow.usedPercentage did not grow after a turn');
      assert.equal(after.session.promptCount, before.session.promptCount + 1);
    }
  });

  // sdk.d.ts of @anthropic-ai/claude-agent-sdk 0.3.332 declares categories[].kind required
  // ('used' | 'free' | 'buffer' | 'deferred': "Classify on this, never on the English name").
  t('k2. getContextUsage(): every category carries its kind', async () => {
    const cwd = mkTmp();
    const s = session(opts(cwd));
    await s.turn('say hi', 'a turn');
    const usage = await within(s.q.getContextUsage(), 'getContextUsage()');
    await s.end();
    const kinds = new Set(['used', 'free', 'buffer', 'deferred']);
    for (const c of usage.categories ?? []) {
      assert.ok(kinds.has(c.kind), `category without a valid kind: ${JSON.stringify(c)}`);
    }
    const free = usage.categories.filter((c) => c.kind === 'free');
    assert.equal(free.length, 1, `expected one 'free' category: ${JSON.stringify(usage.categories)}`);
    assert.ok(usage.categories.some((c) => c.kind === 'used' && c.tokens > 0),
      JSON.stringify(usage.categories));
  }, { skip: caps.categoryKind ? false : 'this SDK\'s context usage categories have no kind' });

  t('l. outputFormat json_schema: result.structured_output is the mock\'s instance', async () => {
    const cwd = mkTmp();
    const msgs = await collect(
      start('answer as JSON', opts(cwd, { outputFormat: { type: 'json_schema', schema: SCHEMA } })),
      'query() with outputFormat',
    );
    const r = onlyResult(msgs);
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.equal(r.is_error, false);
    assert.deepEqual(r.structured_output, SCHEMA_EXAMPLE);
  }, { skip: caps.structuredOutput === true ? false : caps.structuredOutput });
}
