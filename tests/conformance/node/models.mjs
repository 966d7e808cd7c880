// Issue 13 model scenarios, run against one SDK's public API; claude.test.mjs and
// qoder.test.mjs call defineModels().
//
//   p. the model catalogue (Claude supportedModels(), Qoder getAvailableModels())
//   q. (Qoder) a resolveModel policy resolving model `auto`, seen by a fake server
//   r. MAX_THINKING_TOKENS in the environment turns thinking on, seen by a fake server
//
// The fake server is a minimal Messages API on 127.0.0.1 (node:http): it records each
// request body and answers with one streamed text reply, so the test sees what dcl sent.
import assert from 'node:assert/strict';
import http from 'node:http';
import { Input, collect, harness, mkTmp, results } from './lib.mjs';

const REPLY = 'Hello from the fake Anthropic server.';

function sse(model) {
  const events = [
    ['message_start', { type: 'message_start', message: {
      id: 'msg_fake_1', type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: REPLY } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  ];
  return events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
}

/** Runs `fn(server)` with a fake server listening; `server.bodies` holds the requests. */
async function withFakeAnthropic(fn) {
  const bodies = [];
  const srv = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw || '{}');
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(String(body.model ?? '')));
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  const env = { DCL_BASE_URL: `http://127.0.0.1:${port}`, DCL_API_KEY: 'sk-fake-conformance' };
  try {
    return await fn({ bodies, env });
  } finally {
    srv.closeAllConnections?.();
    await new Promise((r) => srv.close(r));
  }
}

/**
 * @param {string} label  test-name prefix
 * @param {Function} query  the SDK's query()
 * @param {(cwd: string) => object} baseOptions  SDK options pointing at dcl
 * @param {'claude' | 'qoder'} dialect
 */
export function defineModels(label, query, baseOptions, dialect) {
  const { t, start } = harness(label, query);
  const opts = (cwd, extra = {}) => {
    const base = baseOptions(cwd);
    return { ...base, ...extra, env: { ...base.env, ...(extra.env ?? {}) } };
  };
  const oneShot = (prompt, options, what) => collect(start(prompt, options), what);

  t('p. the model catalogue', async () => {
    const input = new Input();
    const q = start(input, opts(mkTmp()));
    const models = dialect === 'claude' ? await q.supportedModels() : await q.getAvailableModels();
    input.close();
    const byValue = Object.fromEntries(models.map((m) => [m.value, m]));
    for (const v of ['mock-model', 'sonnet', 'opus', 'haiku']) assert.ok(byValue[v], `${v} missing: ${JSON.stringify(models)}`);
    const sonnet = byValue.sonnet;
    if (dialect === 'claude') {
      assert.ok(byValue.default, JSON.stringify(models));
      assert.match(sonnet.resolvedModel, /^claude-sonnet/);
      assert.equal(sonnet.supportsEffort, true);
      assert.ok(sonnet.supportedEffortLevels.includes('high'), JSON.stringify(sonnet));
      assert.equal(byValue['mock-model'].supportsEffort, false);
    } else {
      assert.ok(byValue.auto, JSON.stringify(models));
      assert.equal(byValue.auto.isEnabled, true);
      assert.deepEqual(sonnet.context_config, { '200K': { token_count: 200000, is_default: true } });
      assert.deepEqual(Object.keys(sonnet.thinking_config.enabled.efforts).sort(), ['high', 'low', 'max', 'medium']);
    }
  });

  if (dialect === 'qoder') {
    t('q. a resolveModel policy resolves model auto', async () => {
      const seen = [];
      await withFakeAnthropic(async (server) => {
        const msgs = await oneShot('hello', opts(mkTmp(), {
          model: 'auto',
          env: server.env,
          resolveModel: (ctx) => { seen.push(ctx); return { model: 'haiku' }; },
        }), 'a turn under a model policy');
        const [r] = results(msgs);
        assert.equal(r?.subtype, 'success', JSON.stringify(msgs));
        assert.equal(r.result, REPLY);
        assert.deepEqual(server.bodies.map((b) => b.model), ['claude-haiku-4-5']);
      });
      assert.equal(seen.length, 1, JSON.stringify(seen));
      assert.equal(seen[0].purpose, 'main');
      assert.equal(seen[0].turnIndex, 0);
      assert.match(seen[0].resolvedModel, /^claude-/);
      assert.ok(seen[0].availableModels.some((m) => m.value === 'auto'));
    });
  }

  for (const budget of ['3000', null]) {
    t(`r. MAX_THINKING_TOKENS=${budget ?? '(unset)'} and the request's thinking`, async () => {
      await withFakeAnthropic(async (server) => {
        const env = { ...server.env };
        if (budget) env.MAX_THINKING_TOKENS = budget;
        const msgs = await oneShot('think about it', opts(mkTmp(), { model: 'claude-sonnet-4-5', env }), 'a turn on the fake server');
        assert.equal(results(msgs)[0]?.result, REPLY, JSON.stringify(msgs));
        assert.equal(server.bodies.length, 1);
        if (budget) assert.deepEqual(server.bodies[0].thinking, { type: 'enabled', budget_tokens: 3000 });
        else assert.equal(server.bodies[0].thinking, undefined);
      });
    });
  }
}
