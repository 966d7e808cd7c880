// dcl driven through npm @anthropic-ai/claude-agent-sdk (public API only):
// query({ prompt, options: { pathToClaudeCodeExecutable: dcl, model: 'mock-model', cwd, ... } }).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { DCL, HERE, checkDcl, childEnv } from './lib.mjs';
import { defineFeatures } from './features.mjs';
import { defineModels } from './models.mjs';
import { defineScenarios } from './scenarios.mjs';

const require = createRequire(import.meta.url);

test('claude: installed SDK is the pinned one with no native CLI (so dcl is what runs)', () => {
  const pkgDir = path.join(HERE, 'node_modules', '@anthropic-ai', 'claude-agent-sdk');
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const pins = JSON.parse(fs.readFileSync(path.join(HERE, 'package.json'), 'utf8')).dependencies;
  assert.equal(pkg.version, pins['@anthropic-ai/claude-agent-sdk']);
  const natives = Object.keys(pkg.optionalDependencies ?? {});
  assert.ok(natives.length > 0);
  for (const name of natives) {
    assert.throws(() => require.resolve(`${name}/package.json`), `${name} is installed`);
  }
  checkDcl();
});

const baseOptions = (cwd) => ({
  pathToClaudeCodeExecutable: DCL,
  model: 'mock-model',
  cwd,
  env: childEnv(),
});

defineScenarios('claude', query, baseOptions);
defineFeatures('claude', { query, tool, createSdkMcpServer }, baseOptions, {
  contextUsage: 'claude',
  categoryKind: true, // required in this SDK's SDKControlGetContextUsageResponse
  structuredOutput: true,
});

defineModels('claude', query, baseOptions, 'claude');
