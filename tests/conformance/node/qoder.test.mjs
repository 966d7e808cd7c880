// dcl driven through npm @qoder-ai/qoder-agent-sdk (public API only):
// query({ prompt, options: { pathToQoderCLIExecutable: dcl, auth: accessToken(...), ... } }).
// Setting pathToQoderCLIExecutable selects the SDK's process (stream-json) transport
// instead of its default in-process worker runtime; the SDK sets
// QODER_AGENT_SDK_ENTRYPOINT=sdk-ts, which selects dcl's Qoder dialect.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { accessToken, createSdkMcpServer, query, tool } from '@qoder-ai/qoder-agent-sdk';
import { DCL, HERE, checkDcl, childEnv } from './lib.mjs';
import { defineFeatures } from './features.mjs';
import { defineModels } from './models.mjs';
import { defineScenarios } from './scenarios.mjs';

test('qoder: installed SDK is the pinned one with no downloaded CLI/worker runtime', () => {
  const pkgDir = path.join(HERE, 'node_modules', '@qoder-ai', 'qoder-agent-sdk');
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const pins = JSON.parse(fs.readFileSync(path.join(HERE, 'package.json'), 'utf8')).dependencies;
  assert.equal(pkg.version, pins['@qoder-ai/qoder-agent-sdk']);
  const bundled = path.join(pkgDir, 'dist', '_bundled');
  const files = fs.existsSync(bundled) ? fs.readdirSync(bundled) : [];
  assert.deepEqual(files, [], `postinstall downloads present in ${bundled}`);
  checkDcl();
});

const baseOptions = (cwd) => ({
  pathToQoderCLIExecutable: DCL,
  auth: accessToken('dcl-conformance-dummy-token'),
  model: 'mock-model',
  cwd,
  env: childEnv(),
});

defineScenarios('qoder', query, baseOptions);
defineFeatures('qoder', { query, tool, createSdkMcpServer }, baseOptions, {
  // getContextUsage() answers in the Qoder shape (SDKControlGetContextUsageResponse).
  contextUsage: 'qoder',
  categoryKind: false,
  structuredOutput: '@qoder-ai/qoder-agent-sdk 1.0.39 has no structured output: Options has no '
    + 'outputFormat and its result message type has no structured_output',
});

defineModels('qoder', query, baseOptions, 'qoder');
