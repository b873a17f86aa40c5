import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientNetwork } from '../../src/rate-limit/client-network.js';

describe('the network a client address counts for', () => {
  it('an IPv4 address counts for itself, also when a dual-stack listener reports it IPv4-mapped', () => {
    assert.equal(clientNetwork('192.0.2.1'), '192.0.2.1');
    assert.equal(clientNetwork('::ffff:192.0.2.1'), '192.0.2.1');
    assert.notEqual(clientNetwork('192.0.2.1'), clientNetwork('192.0.2.2'));
  });

  it('every IPv6 address of one /64 counts for that /64; another /64 is another network', () => {
    const a = clientNetwork('2001:db8:1:2::1');
    assert.equal(a, '2001:db8:1:2::/64');
    assert.equal(clientNetwork('2001:db8:1:2:ffff:ffff:ffff:ffff'), a);
    assert.equal(clientNetwork('2001:0db8:0001:0002:0000:0000:0000:0099'), a);
    assert.notEqual(clientNetwork('2001:db8:1:3::1'), a);
    assert.equal(clientNetwork('::1'), '::/64');
  });

  it('leaves anything that is not an address as it is', () => {
    assert.equal(clientNetwork('unknown'), 'unknown');
  });
});
