/**
 * DPoP across two server processes on one PostgreSQL schema (RFC 9449 §8, §11.1;
 * docs/decisions.md "DPoP"): a proof accepted by one instance is refused by the other, and a
 * server nonce one instance handed out is accepted by the other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { PG_URL } from '../helpers/app.js';
import { type DpopKey, dpopKey, makeProof } from '../helpers/dpop.js';
import { createPerson, type Person } from '../helpers/flow.js';
import { codeViaPages, type RemoteClient, registerClient } from '../helpers/remote-client.js';
import { type Cluster, startCluster } from './cluster.js';

const REDIRECT = 'http://127.0.0.1:9998/callback';

describe('DPoP on two instances of one PostgreSQL', {
  skip: PG_URL ? false : 'PostgreSQL not available',
}, () => {
  let cluster: Cluster;
  let storage: Storage;
  let person: Person;
  let client: RemoteClient;
  let key: DpopKey;
  before(async () => {
    cluster = await startCluster({ DPOP_NONCES: 'on' });
    storage = await openStorage(cluster.databaseUrl);
    person = await createPerson(storage.store);
    client = { id: await registerClient(cluster.a.url, REDIRECT, 'DPoP agent'), redirect: REDIRECT };
    key = await dpopKey();
  });
  after(async () => {
    await storage?.close();
    await cluster?.close();
  });

  const exchange = async (at: string, proof: string) => {
    const minted = await codeViaPages(at, client, { person });
    return fetch(`${at}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: minted.code,
        redirect_uri: REDIRECT,
        code_verifier: minted.verifier,
        client_id: client.id,
      }).toString(),
    });
  };

  it('a nonce of instance A is accepted by B, and a proof accepted by B is refused as a replay by A', async () => {
    const htu = `${cluster.issuer}/api/oauth/token`;
    const first = await exchange(cluster.a.url, await makeProof(key, { htu }));
    assert.equal(first.status, 400);
    assert.equal(((await first.json()) as { error: string }).error, 'use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce');
    assert.ok(nonce, 'A answers its nonce in DPoP-Nonce');
    const proof = await makeProof(key, { htu, nonce });
    const accepted = await exchange(cluster.b.url, proof);
    assert.equal(accepted.status, 200, await accepted.clone().text());
    assert.equal(((await accepted.json()) as { token_type: string }).token_type, 'DPoP');
    const replayed = await exchange(cluster.a.url, proof);
    assert.equal(replayed.status, 400);
    const body = (await replayed.json()) as { error: string; error_description: string };
    assert.equal(body.error, 'invalid_dpop_proof');
    assert.match(body.error_description, /used before/);
  });
});
