// Sessions through the unmodified TS SDKs: their own helpers (listSessions,
// getSessionMessages) list and read the transcripts dcl writes, also after `/compact`, and
// `resume` goes on from them.
import assert from 'node:assert/strict';
import path from 'node:path';
import * as claude from '@anthropic-ai/claude-agent-sdk';
import * as qoder from '@qoder-ai/qoder-agent-sdk';
import { DCL, HELLO, checkDcl, childEnv, collect, harness, mkTmp, results } from './lib.mjs';

const SDKS = [
  {
    label: 'claude',
    mod: claude,
    configVar: 'CLAUDE_CONFIG_DIR',
    options: (cwd, env) => ({ pathToClaudeCodeExecutable: DCL, model: 'mock-model', cwd, env }),
  },
  {
    label: 'qoder',
    mod: qoder,
    configVar: 'QODER_CONFIG_DIR',
    options: (cwd, env) => ({
      pathToQoderCLIExecutable: DCL,
      auth: qoder.accessToken('dcl-conformance-dummy-token'),
      model: 'mock-model',
      cwd,
      env,
    }),
  },
];

checkDcl();

for (const sdk of SDKS) {
  const { t, start } = harness(`${sdk.label} sessions`, sdk.mod.query);

  t('the SDK helpers list and read dcl sessions, before and after /compact', async () => {
    const cwd = mkTmp();
    // The helpers run in this process and read the config dir from its environment;
    // dcl gets the same one.
    const config = path.join(mkTmp('dcl-conf-config-'), 'home');
    process.env[sdk.configVar] = config;
    const env = { ...childEnv(), [sdk.configVar]: config };
    try {
      const first = results(await collect(start('remember the word blue', sdk.options(cwd, env)), 'first'));
      assert.equal(first.length, 1);
      assert.equal(first[0].is_error, false, JSON.stringify(first[0]));
      assert.equal(first[0].result, HELLO);
      const sid = first[0].session_id;

      const listed = (await sdk.mod.listSessions({ dir: cwd })).map((s) => s.sessionId);
      assert.deepEqual(listed, [sid]);
      const messages = await sdk.mod.getSessionMessages(sid, { dir: cwd });
      assert.deepEqual(messages.map((m) => m.type), ['user', 'assistant']);

      const compacted = results(
        await collect(start('/compact', { ...sdk.options(cwd, env), resume: sid }), '/compact'),
      );
      assert.equal(compacted[0].is_error, false, JSON.stringify(compacted[0]));
      assert.equal(compacted[0].session_id, sid);
      const resumed = results(
        await collect(start('and now?', { ...sdk.options(cwd, env), resume: sid }), 'after /compact'),
      );
      assert.equal(resumed[0].is_error, false, JSON.stringify(resumed[0]));
      assert.equal(resumed[0].session_id, sid);

      assert.deepEqual((await sdk.mod.listSessions({ dir: cwd })).map((s) => s.sessionId), [sid]);
      // After the boundary the visible conversation is the summary and what followed.
      const after = await sdk.mod.getSessionMessages(sid, { dir: cwd });
      const texts = after.map((m) => JSON.stringify(m.message?.content ?? ''));
      assert.ok(texts.some((x) => x.includes('and now?')), JSON.stringify(after));
      assert.ok(!texts.some((x) => x.includes('remember the word blue')), JSON.stringify(after));
    } finally {
      delete process.env[sdk.configVar];
    }
  });
}

{
  // A resume of a session no home holds: the Claude TS SDK gets an error result that names
  // why the session could not start, and raises it with that reason for the host to act on.
  const { t, start } = harness('claude sessions', claude.query);
  t('a resume of a missing session ends with resume_target_not_found', async () => {
    const cwd = mkTmp();
    const config = path.join(mkTmp('dcl-conf-config-'), 'home');
    const env = { ...childEnv(), CLAUDE_CONFIG_DIR: config };
    const missing = '0e0e0e0e-1111-4222-8333-444455556666';
    const seen = [];
    let raised;
    try {
      for await (const m of start('hello?', { ...SDKS[0].options(cwd, env), resume: missing })) {
        seen.push(m);
      }
    } catch (e) {
      raised = e;
    }
    const [result] = results(seen);
    assert.ok(result, JSON.stringify(seen));
    assert.equal(result.is_error, true);
    assert.equal(result.startup_failure_reason, 'resume_target_not_found');
    assert.deepEqual(result.errors, [`No conversation found with session ID: ${missing}`]);
    // The exit after it surfaces as the SDK's error, carrying the same reason.
    assert.ok(raised, 'the query ends with an error');
    assert.equal(raised.startupFailureReason, 'resume_target_not_found');
  });
}
