// Helpers for run.sh, on the Node the suite itself runs on (no curl or
// python needed):
//
//   node harness.mjs port
//       prints a free TCP port on 127.0.0.1
//   node harness.mjs wait-tools URL TOOL SECONDS [PID]
//       waits until the streamable-HTTP MCP server at URL lists a tool whose
//       name is TOOL or ends in "__TOOL" (legacy initialize, then tools/list),
//       retrying until SECONDS have passed; exits 1 on timeout, or at once
//       when process PID (the server) has exited
//   node harness.mjs summarize EXPECTED_FAILURES DIRECT_DIR [GATEWAY_GAPS GATEWAY_DIR]
//       reads the suite's results/*/checks.json, prints one Markdown table
//       of every scenario (direct, and through the gateway), and exits 0
//       only when the direct run fails exactly the expected scenarios and
//       every scenario that passes directly passes through the gateway,
//       but for the known gateway gaps (GATEWAY_GAPS), each of which must
//       name its issue, pass directly and still fail through the gateway.
//   node harness.mjs selftest
//       checks the gates of summarize on made-up results: each way a
//       list can be wrong (a gap or an expected failure that passes, an
//       unlisted failure, a line without its issue or reason) fails them.
import { createServer } from 'node:net';
import { readdirSync, readFileSync, existsSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

// probeCapabilities are what the probe's client says it can answer: what
// the suite's own clients say. mcpvisor serve tells a server that
// connects what the clients connected at that moment can answer (actors
// Options.Honourable, gateway.Relay); a probe that said nothing, caught
// connected as the upstream server connects, would have it told that no
// client samples or elicits, and the suite's sampling and elicitation
// scenarios would fail for the probe's sake, depending on timing.
const probeCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

const [cmd, ...args] = process.argv.slice(2);

if (cmd === 'port') {
  const s = createServer().listen(0, '127.0.0.1', () => {
    console.log(s.address().port);
    s.close();
  });
} else if (cmd === 'wait-tools') {
  const [url, tool, seconds, pid] = args;
  const deadline = Date.now() + Number(seconds) * 1000;
  let last = '';
  for (;;) {
    try {
      const names = await listTools(url);
      if (names.some((n) => n === tool || n.endsWith('__' + tool))) process.exit(0);
      last = `tools: ${names.join(', ') || '(none)'}`;
    } catch (e) {
      last = String(e?.cause?.code ?? e?.message ?? e);
    }
    if (pid && !alive(Number(pid))) {
      console.error(`wait-tools ${url}: the server (pid ${pid}) exited (last: ${last})`);
      process.exit(1);
    }
    if (Date.now() > deadline) {
      console.error(`wait-tools ${url}: no tool ${tool} after ${seconds}s (last: ${last})`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
} else if (cmd === 'summarize') {
  process.exit(summarize(...args));
} else if (cmd === 'selftest') {
  process.exit(selftest());
} else {
  console.error('usage: node harness.mjs port | wait-tools URL TOOL SECONDS | summarize EXPECTED DIRECT [GAPS GATEWAY] | selftest');
  process.exit(2);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// rpc posts one JSON-RPC message and returns the response's result (or
// null for a notification); an SSE answer is read for its message.
async function rpc(url, session, body) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  if (session) headers['mcp-session-id'] = session;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  if (!res.ok && res.status !== 202) throw new Error(`${body.method}: HTTP ${res.status}`);
  const text = await res.text();
  if (body.id === undefined) return { session: res.headers.get('mcp-session-id') };
  const json = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === body.id)
    : JSON.parse(text);
  if (!json) throw new Error(`${body.method}: no answer`);
  if (json.error) throw new Error(`${body.method}: ${json.error.message}`);
  return { session: res.headers.get('mcp-session-id'), result: json.result };
}

async function listTools(url) {
  const init = await rpc(url, null, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: probeCapabilities, clientInfo: { name: 'mcpconformance-harness', version: '1' } } });
  const session = init.session;
  try {
    await rpc(url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const names = [];
    let cursor;
    do {
      const { result } = await rpc(url, session, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: cursor ? { cursor } : {} });
      names.push(...result.tools.map((t) => t.name));
      cursor = result.nextCursor;
    } while (cursor);
    return names;
  } finally {
    if (session) await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } }).catch(() => {});
  }
}

// results maps each scenario of one run to its verdict. The suite writes
// DIR/server-SCENARIO-TIMESTAMP/checks.json; like the suite's own baseline
// check, a scenario fails when any check is a FAILURE or a WARNING.
function results(dir) {
  const out = new Map();
  if (!dir || !existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(name);
    if (!m) continue;
    const file = join(dir, name, 'checks.json');
    const count = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
    try {
      for (const c of JSON.parse(readFileSync(file, 'utf8'))) if (c.status in count) count[c.status]++;
    } catch {
      count.FAILURE++;
    }
    out.set(m[1], { pass: count.FAILURE === 0 && count.WARNING === 0, ...count });
  }
  return out;
}

// listed reads one top-level list of a suite-style YAML file (`key:`
// then `  - scenario  # reason` lines): scenario → the comment after it.
function listed(file, key) {
  const out = new Map();
  let inList = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inList = new RegExp(`^${key}:\\s*(\\[\\])?\\s*(#.*)?$`).test(line);
    const m = /^\s+-\s+([\w./-]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (inList && m) out.set(m[1], m[2] ?? '');
  }
  return out;
}

function expectedFailures(file) {
  return new Set(listed(file, 'server').keys());
}

function cell(r) {
  if (!r) return 'no result';
  const extra = [r.FAILURE && `${r.FAILURE} failed`, r.WARNING && `${r.WARNING} warnings`].filter(Boolean).join(', ');
  return r.pass ? `pass (${r.SUCCESS})` : `FAIL (${extra})`;
}

function summarize(expectedFile, directDir, gapsFile, gatewayDir) {
  const expected = expectedFailures(expectedFile);
  const gaps = gapsFile ? listed(gapsFile, 'gateway') : new Map();
  const direct = results(directDir);
  const gateway = gatewayDir ? results(gatewayDir) : null;
  const scenarios = [...new Set([...direct.keys(), ...(gateway?.keys() ?? [])])];
  const rows = [gateway ? '| scenario | direct | through `mcpvisor serve` |' : '| scenario | direct |', gateway ? '| --- | --- | --- |' : '| --- | --- |'];
  for (const s of scenarios) rows.push(`| ${s} | ${cell(direct.get(s))}${expected.has(s) ? ' (expected)' : ''} |${gateway ? ` ${cell(gateway.get(s))}${gaps.has(s) ? ` (known gap: ${gaps.get(s)})` : ''} |` : ''}`);
  const passed = (m) => [...m.values()].filter((r) => r.pass).length;
  rows.push('');
  rows.push(`direct: ${passed(direct)} of ${direct.size} scenarios pass` + (gateway ? `; through the gateway: ${passed(gateway)} of ${gateway.size}` : ''));
  console.log(rows.join('\n'));

  const problems = [];
  for (const s of scenarios) {
    const d = direct.get(s);
    if (!d) problems.push(`${s}: no direct result`);
    else if (!d.pass && !expected.has(s)) problems.push(`${s}: fails directly and is not in ${expectedFile}`);
    else if (d.pass && expected.has(s)) problems.push(`${s}: passes directly but is listed in ${expectedFile} (remove it: the list only shrinks)`);
    if (!gateway || !d?.pass) continue;
    const g = gateway.get(s);
    if (gaps.has(s)) {
      if (!g) problems.push(`${s}: a known gateway gap with no result through the gateway`);
      else if (g.pass) problems.push(`${s}: passes through the gateway now but is listed in ${gapsFile} (remove it: the list only shrinks)`);
    } else if (!g?.pass) problems.push(`${s}: passes directly, fails through the gateway`);
  }
  for (const s of expected) if (!direct.has(s)) problems.push(`${s}: listed in ${expectedFile} but not run`);
  for (const [s, why] of listed(expectedFile, 'server')) if (!why.trim()) problems.push(`${s}: its line in ${expectedFile} gives no reason`);
  if (gateway) {
    for (const [s, why] of gaps) {
      if (!direct.has(s)) problems.push(`${s}: listed in ${gapsFile} but not run`);
      else if (!direct.get(s).pass) problems.push(`${s}: listed in ${gapsFile} but fails directly too (a gap is what only the gateway fails)`);
      if (!/\bissue \d+\b/.test(why)) problems.push(`${s}: its line in ${gapsFile} names no issue ("# issue N: why")`);
    }
  }
  if (problems.length) {
    console.log(`\n${problems.length} gate problems:\n` + problems.map((p) => `  - ${p}`).join('\n'));
    return 1;
  }
  const gapNote = gaps.size ? `, but for ${gaps.size} known gateway gaps (${[...gaps.keys()].join(', ')}), each still failing` : '';
  console.log('\ngates passed: the direct run fails exactly the expected scenarios' + (gateway ? `, and every direct pass passes through the gateway${gapNote}` : ''));
  return 0;
}

// selftest runs summarize on made-up results and lists: the gates must
// pass on consistent ones and fail on each inconsistency.
function selftest() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpconformance-selftest-'));
  const run = (name, verdicts) => {
    const out = join(dir, name);
    for (const [scenario, pass] of Object.entries(verdicts)) {
      const d = join(out, `server-${scenario}-2026-12-01T00-00-00-000Z`);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'checks.json'), JSON.stringify([{ status: pass ? 'SUCCESS' : 'FAILURE' }]));
    }
    return out;
  };
  const file = (name, text) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const expected = file('expected.yml', 'server:\n  - broken  # fails directly: a reason\n');
  const gaps = file('gaps.yml', 'gateway:\n  - relayed  # issue 14: not relayed yet\n');
  const direct = run('direct', { ok: true, relayed: true, broken: false });
  const cases = [
    ['consistent lists pass', 0, expected, direct, gaps, run('gw-ok', { ok: true, relayed: false, broken: false })],
    ['a gap that passes through the gateway fails', 1, expected, direct, gaps, run('gw-gap-passes', { ok: true, relayed: true, broken: false })],
    ['a gap with no result through the gateway fails', 1, expected, direct, gaps, run('gw-gap-missing', { ok: true, broken: false })],
    ['an unlisted scenario failing through the gateway fails', 1, expected, direct, gaps, run('gw-unlisted', { ok: false, relayed: false, broken: false })],
    ['a gap without its issue fails', 1, expected, direct, file('gaps-noissue.yml', 'gateway:\n  - relayed  # not relayed yet\n'), run('gw-ok2', { ok: true, relayed: false })],
    ['a gap that fails directly too fails', 1, expected, direct, file('gaps-direct.yml', 'gateway:\n  - relayed  # issue 14: x\n  - broken  # issue 14: y\n'), run('gw-ok3', { ok: true, relayed: false, broken: false })],
    ['an expected failure that passes directly fails', 1, expected, run('direct-fixed', { ok: true, relayed: true, broken: true }), gaps, run('gw-ok4', { ok: true, relayed: false, broken: true })],
    ['an unexpected direct failure fails', 1, expected, run('direct-worse', { ok: false, relayed: true, broken: false }), gaps, run('gw-ok5', { ok: false, relayed: false, broken: false })],
    ['an expected failure without a reason fails', 1, file('expected-noreason.yml', 'server:\n  - broken\n'), direct, gaps, run('gw-ok6', { ok: true, relayed: false, broken: false })],
  ];
  const log = console.log;
  let failed = 0;
  for (const [name, want, exp, d, g, gw] of cases) {
    console.log = () => {};
    const got = summarize(exp, d, g, gw);
    console.log = log;
    if (got !== want) {
      failed++;
      console.log(`selftest: ${name}: summarize returned ${got}, want ${want}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(failed ? `selftest: ${failed} of ${cases.length} cases wrong` : `selftest: the gates hold in all ${cases.length} cases`);
  return failed ? 1 : 0;
}
