import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { PG_URL } from '../helpers/app.js';
import { authorizeViaPages, Browser, createPerson, type Person, pkcePair } from '../helpers/flow.js';
import { type Cluster, startCluster } from './cluster.js';

const REDIRECT = 'http://127.0.0.1:9999/callback';

describe('two instances on one PostgreSQL: flows', {
  skip: PG_URL ? false : 'PostgreSQL not available',
}, () => {
  let cluster: Cluster;
  let storage: Storage;
  let person: Person;
  let clientId: string;
  before(async () => {
    cluster = await startCluster();
    storage = await openStorage(cluster.databaseUrl);
    person = await createPerson(storage.db);
    const registered = await fetch(`${cluster.a.url}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Two instances' }),
    });
    assert.equal(registered.status, 201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  after(async () => {
    await storage.close();
    await cluster.close();
  });

  const params = (scope = 'openid profile') => ({
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    code_challenge: pkcePair().challenge,
    state: 's1',
  });

  it('consent given through A is remembered at B (the session too)', async () => {
    const browser = new Browser(cluster.a.url);
    const first = await authorizeViaPages({
      baseUrl: cluster.a.url,
      browser,
      params: params(),
      email: person.email,
      password: person.password,
      decision: 'allow',
    });
    assert.ok(first.searchParams.get('code'));
    // No decision and no password given: B must neither ask for consent nor for sign-in.
    const second = await authorizeViaPages({ baseUrl: cluster.b.url, browser, params: params() });
    assert.ok(second.searchParams.get('code'));
    assert.equal(second.searchParams.get('iss'), cluster.issuer, 'the issuer, not B’s own address');
  });
});
