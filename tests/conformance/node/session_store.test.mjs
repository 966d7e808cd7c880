// A Qoder TS fork with a SessionStore: the SDK forks only when the CLI advertises
// `session_store_fork_barrier_v1`, and completes the barrier with the fork's
// transcript_mirror frames, which must arrive before dcl answers `initialize`
// (issue 21). The store is the SDK's own InMemorySessionStore.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { InMemorySessionStore, query, accessToken } from '@qoder-ai/qoder-agent-sdk';
import { DCL, HELLO, checkDcl, childEnv, collect, harness, mkTmp, results } from './lib.mjs';

checkDcl();

const { t, start } = harness('qoder session store', query);

t('a fork with a store passes the barrier and lands in the store', async () => {
  const cwd = mkTmp();
  const store = new InMemorySessionStore();
  const options = {
    pathToQoderCLIExecutable: DCL,
    auth: accessToken('dcl-conformance-dummy-token'),
    model: 'mock-model',
    cwd,
    env: childEnv(),
    sessionStore: store,
  };
  const first = results(await collect(start('remember the word blue', options), 'first turn'));
  assert.equal(first.length, 1);
  assert.equal(first[0].is_error, false, JSON.stringify(first[0]));
  const sid = first[0].session_id;

  const forked = results(
    await collect(start('and now?', { ...options, resume: sid, forkSession: true }), 'forked turn'),
  );
  assert.equal(forked.length, 1, 'the fork produced no result');
  assert.equal(forked[0].is_error, false, JSON.stringify(forked[0]));
  assert.equal(forked[0].result, HELLO);
  const forkId = forked[0].session_id;
  assert.notEqual(forkId, sid);

  // The store holds the fork: its copied chain (the first turn) and the new turn, under
  // the project key of the (real) cwd, sanitised as the reference does for short paths.
  const projectKey = fs.realpathSync(cwd).replace(/[^a-zA-Z0-9]/g, '-');
  const sessions = (await store.listSessions(projectKey)).map((s) => s.sessionId);
  assert.ok(sessions.includes(forkId), `fork ${forkId} not in the store: ${JSON.stringify(sessions)}`);
  const text = JSON.stringify(await store.load({ projectKey, sessionId: forkId }));
  assert.ok(text.includes('remember the word blue'), text);
  assert.ok(text.includes('and now?'), text);
});
