// The five conformance scenarios, run against one SDK's `query()`.
// claude.test.mjs and qoder.test.mjs call defineScenarios() with their SDK.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  DONE_RE, HELLO, Input, Reader, assistantTexts, collect, harness, mkTmp, results, within,
} from './lib.mjs';

/**
 * @param {string} label      test-name prefix
 * @param {Function} query    the SDK's query({prompt, options})
 * @param {(cwd: string) => object} baseOptions  SDK options pointing at dcl
 */
export function defineScenarios(label, query, baseOptions) {
  const opts = (cwd, extra = {}) => ({ ...baseOptions(cwd), ...extra });
  const { t, start } = harness(label, query);

  t('a. one-shot query("say hi")', async () => {
    const cwd = mkTmp();
    const msgs = await collect(start('say hi', opts(cwd)), 'query()');
    const res = results(msgs);
    assert.equal(res.length, 1, `expected one result, got ${JSON.stringify(msgs)}`);
    const r = res[0];
    assert.equal(r.subtype, 'success', JSON.stringify(r));
    assert.equal(r.is_error, false);
    assert.equal(r.result, HELLO);
    assert.ok(r.session_id, 'result.session_id is empty');
    assert.ok(assistantTexts(msgs).includes(HELLO), `no assistant message with "${HELLO}"`);
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
    assert.ok(init, 'no system/init message');
    assert.equal(init.session_id, r.session_id);
    for (const m of msgs) {
      if (m.type === 'assistant') assert.equal(m.session_id, r.session_id);
    }
  });

  t('b. multi-turn (streaming input): two turns, one session', async () => {
    const cwd = mkTmp();
    const input = new Input();
    const reader = new Reader(start(input, opts(cwd)));
    input.push('say hi');
    const first = await reader.untilResult('first result');
    input.push('say hi again');
    const second = await reader.untilResult('second result');
    input.close();
    await reader.rest('end of stream after the input closed');

    const [r1, r2] = [results(first), results(second)];
    assert.equal(r1.length, 1);
    assert.equal(r2.length, 1);
    for (const r of [r1[0], r2[0]]) {
      assert.equal(r.subtype, 'success', JSON.stringify(r));
      assert.equal(r.result, HELLO);
    }
    assert.ok(r1[0].session_id);
    assert.equal(r2[0].session_id, r1[0].session_id, 'the second turn changed session');
    assert.ok(assistantTexts(first).includes(HELLO));
    assert.ok(assistantTexts(second).includes(HELLO));
  });

  async function writeWithPermission(allow) {
    const cwd = mkTmp();
    const target = path.join(cwd, 'hello.txt');
    const calls = [];
    const canUseTool = async (toolName, input, options) => {
      calls.push({ toolName, input, toolUseID: options?.toolUseID, signal: options?.signal });
      return allow
        ? { behavior: 'allow', updatedInput: input }
        : { behavior: 'deny', message: 'denied by the conformance test' };
    };
    const msgs = await collect(
      start(`please FAKE_WRITE ${target}`, opts(cwd, { canUseTool, permissionMode: 'default' })),
      'query() with canUseTool',
    );
    return { msgs, calls, target };
  }

  t('c. canUseTool allow: Write runs', async () => {
    const { msgs, calls, target } = await writeWithPermission(true);
    assert.equal(calls.length, 1, `canUseTool calls: ${JSON.stringify(calls)}`);
    assert.equal(calls[0].toolName, 'Write');
    assert.equal(calls[0].input.file_path, target);
    assert.ok(calls[0].toolUseID, 'canUseTool got no toolUseID');
    assert.ok(calls[0].signal instanceof AbortSignal, 'canUseTool got no AbortSignal');
    assert.ok(fs.existsSync(target), 'Write was allowed but the file does not exist');
    assert.equal(fs.readFileSync(target, 'utf8'), 'hello\n');
    const res = results(msgs);
    assert.equal(res.length, 1);
    assert.equal(res[0].subtype, 'success', JSON.stringify(res[0]));
    assert.equal(res[0].is_error, false);
    assert.deepEqual(res[0].permission_denials ?? [], []);
    assert.match(res[0].result, DONE_RE);
  });

  t('d. canUseTool deny: no file, one denial', async () => {
    const { msgs, calls, target } = await writeWithPermission(false);
    assert.deepEqual(calls.map((c) => c.toolName), ['Write']);
    assert.ok(!fs.existsSync(target), 'Write was denied but the file exists');
    const res = results(msgs);
    assert.equal(res.length, 1);
    const denials = res[0].permission_denials;
    assert.ok(Array.isArray(denials), `permission_denials: ${JSON.stringify(denials)}`);
    assert.equal(denials.length, 1, JSON.stringify(denials));
    assert.equal(denials[0].tool_name, 'Write');
    assert.equal(denials[0].tool_use_id, calls[0].toolUseID);
  });

  t('e. interrupt() a slow turn, then another turn', async () => {
    const cwd = mkTmp();
    const input = new Input();
    const q = start(input, opts(cwd, { includePartialMessages: true }));
    const reader = new Reader(q);
    input.push('FAKE_SLOW please');

    let interrupted; // promise of q.interrupt(), started once
    let interruptedAt;
    const interrupt = () => {
      if (!interrupted) {
        interruptedAt = Date.now();
        interrupted = q.interrupt();
      }
    };
    const fallback = setTimeout(interrupt, 2000); // no streamed output yet: interrupt anyway
    let slow;
    let resultAt;
    try {
      slow = await reader.untilResult('the interrupted turn\'s result', (m) => {
        if (m.type === 'stream_event' || m.type === 'assistant') interrupt();
        if (m.type === 'result') resultAt = Date.now();
      });
    } finally {
      clearTimeout(fallback);
    }
    assert.ok(interrupted, `the slow turn ended before the interrupt: ${JSON.stringify(slow)}`);
    await within(interrupted, 'the interrupt control response', 15000);
    const elapsed = resultAt - interruptedAt;
    const r = results(slow)[0];
    assert.equal(r.subtype, 'error_during_execution', JSON.stringify(r));
    assert.equal(r.is_error, true);
    assert.ok(elapsed < 3000, `result came ${elapsed} ms after interrupt()`);

    input.push('say hi');
    const after = await reader.untilResult('the result after the interrupt');
    const r2 = results(after)[0];
    assert.equal(r2.subtype, 'success', JSON.stringify(r2));
    assert.equal(r2.result, HELLO);
    assert.equal(r2.session_id, r.session_id);
    input.close();
    await reader.rest('end of stream after the input closed');
  });
}
