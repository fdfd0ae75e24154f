// Loaded with `node --require` in front of mcp-hub, which has no host flag
// and calls listen(port) on every interface: a TCP listen with no host, or
// with a wildcard host, binds 127.0.0.1 instead. Anything else (a named
// host, a Unix socket, a handle) is passed through untouched.
'use strict';

const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const isWildcard = (h) => h === undefined || h === null || h === '' || h === '0.0.0.0' || h === '::';
const looksLikePort = (p) => Number.isInteger(p) || (typeof p === 'string' && /^[0-9]+$/.test(p));

const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function loopbackListen(...args) {
  if (looksLikePort(args[0])) {
    if (typeof args[1] === 'string') {
      if (isWildcard(args[1])) args[1] = LOOPBACK;
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (args[0] && typeof args[0] === 'object' && !(args[0] instanceof net.Server)) {
    const o = args[0];
    const isTCP = o.path === undefined && o.handle === undefined && o.fd === undefined && o._handle === undefined;
    if (isTCP && isWildcard(o.host)) args[0] = Object.assign({}, o, { host: LOOPBACK });
  }
  return originalListen.apply(this, args);
};
