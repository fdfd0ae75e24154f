// Preload for `node --require loopback.cjs ...`: a server that listens on a
// port without naming a host (server-everything's `app.listen(PORT)`) binds
// 127.0.0.1 instead of every interface. An explicit non-wildcard host, a
// Unix socket path or an inherited handle is left alone. BIND_HOST overrides
// the address.
'use strict';

const net = require('node:net');

const loopback = process.env.BIND_HOST || '127.0.0.1';
const wildcard = (host) => host == null || host === '' || host === '0.0.0.0' || host === '::';
const isPort = (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v));

const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first, second] = args;
  if (args.length === 0 || typeof first === 'function') {
    // listen() or listen(callback): an ephemeral port.
    args.unshift(0, loopback);
  } else if (isPort(first)) {
    // listen(port[, host][, backlog][, callback])
    if (typeof second === 'string') {
      if (wildcard(second)) args[1] = loopback;
    } else {
      args.splice(1, 0, loopback);
    }
  } else if (first !== null && typeof first === 'object' && !(first instanceof net.Server)) {
    // listen({port, host, ...}); a path, handle or fd is not a TCP port.
    const tcp = first.path === undefined && first.handle === undefined && first.fd === undefined && first._handle === undefined;
    if (tcp && wildcard(first.host)) args[0] = { ...first, host: loopback };
  }
  return listen.apply(this, args);
};
