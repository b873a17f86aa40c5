/**
 * The operator's rules for clients identified by a metadata document (docs/decisions.md "Client ID Metadata Documents"): block a
 * client_id URL or a whole domain, or trust one — trusting registers it as an integration, whose
 * https redirect URIs become usable. A rule for a domain covers its subdomains; a block wins.
 */
import { recordAudit } from '../../audit/audit.js';
import type { AppContext } from '../../context.js';
import { clientIdHost, clientIdUrlProblem } from '../../oauth/client-id-metadata/client-id-url.js';
import { normalizeHost } from '../../oauth/client-id-metadata/host-names.js';
import { domainProblem, judgeClientId } from '../../oauth/client-id-metadata/rules.js';
import type { ClientMetadataRule, MetadataRuleDecision, MetadataRuleTarget } from '../../storage/schema.js';
import { CommandError, defineCommand, isoTime, type OptionSpec, table, UsageError } from '../command.js';

const TARGET_OPTIONS = {
  'client-id': { type: 'string', description: 'one client_id URL, exactly (https://…)' },
  domain: { type: 'string', description: 'a domain: every client_id URL on it or its subdomains' },
} satisfies OptionSpec;

interface Target {
  readonly kind: MetadataRuleTarget;
  readonly target: string;
}

/** Exactly one of --client-id and --domain, well-formed; else a usage error (exit 2). */
function readTarget(args: { 'client-id'?: string | undefined; domain?: string | undefined }): Target {
  const clientId = args['client-id'];
  const domain = args.domain;
  if ((clientId === undefined) === (domain === undefined)) {
    throw new UsageError('give exactly one of --client-id https://… and --domain example.com');
  }
  if (clientId !== undefined) {
    const problem = clientIdUrlProblem(clientId);
    if (problem) throw new UsageError(`--client-id ${clientId} ${problem}`);
    return { kind: 'client_id', target: clientId };
  }
  // One spelling per host (case, final dot, IDNA): the rule is stored and matched as it.
  const host = normalizeHost(domain!);
  const problem = domainProblem(host);
  if (problem) throw new UsageError(`--domain ${problem}`);
  return { kind: 'domain', target: host };
}

const describeTarget = (t: Target): string =>
  t.kind === 'client_id' ? t.target : `${t.target} (and subdomains)`;

/** Revokes every grant of the metadata-document clients a new block covers; how many. */
async function revokeBlocked(ctx: AppContext, rule: ClientMetadataRule): Promise<number> {
  const clients = await ctx.store.clientAdmin.list('metadata_document');
  let revoked = 0;
  for (const client of clients) {
    if (judgeClientId([rule], client.id, clientIdHost(client.id)) !== 'blocked') continue;
    // The rule, not the disabled flag, keeps the client out: clearing the rule lets it back in.
    revoked += await ctx.store.clientAdmin.revokeGrants(client.id, ctx.now());
  }
  return revoked;
}

async function setRule(ctx: AppContext, target: Target, decision: MetadataRuleDecision): Promise<number> {
  const now = ctx.now();
  await ctx.store.clientAdmin.setMetadataRule({ ...target, decision }, now);
  const rule = { target_kind: target.kind, target: target.target, decision, created_at: now };
  const revoked = decision === 'block' ? await revokeBlocked(ctx, rule) : 0;
  await recordAudit(
    ctx.store,
    {
      kind: 'client_metadata.rule_set',
      clientId: target.kind === 'client_id' ? target.target : null,
      detail: { target_kind: target.kind, target: target.target, decision, grants_revoked: revoked },
    },
    now,
  );
  return revoked;
}

export const clientBlock = defineCommand({
  name: 'client block',
  summary: 'Block a client_id URL or a domain: its metadata document is never used; its grants are revoked',
  options: TARGET_OPTIONS,
  async run(ctx, args, io) {
    const target = readTarget(args);
    const revoked = await setRule(ctx, target, 'block');
    io.stdout(`blocked ${describeTarget(target)}; ${revoked} grant(s) and their tokens revoked\n`);
  },
});

export const clientTrust = defineCommand({
  name: 'client trust',
  summary:
    'Register a client_id URL or a domain as an integration: https redirect URIs in its document become usable',
  options: TARGET_OPTIONS,
  async run(ctx, args, io) {
    const target = readTarget(args);
    await setRule(ctx, target, 'trust');
    io.stdout(
      `trusted ${describeTarget(target)}: registered integration; https redirect URIs in its document are usable\n`,
    );
  },
});

export const clientClearRule = defineCommand({
  name: 'client clear-rule',
  summary: 'Remove the block or trust rule of a client_id URL or a domain',
  options: TARGET_OPTIONS,
  async run(ctx, args, io) {
    const target = readTarget(args);
    if (!(await ctx.store.clientAdmin.clearMetadataRule(target.kind, target.target))) {
      throw new CommandError(`no rule for ${describeTarget(target)}; schoolauth client rules lists them`);
    }
    await recordAudit(
      ctx.store,
      {
        kind: 'client_metadata.rule_cleared',
        clientId: target.kind === 'client_id' ? target.target : null,
        detail: { target_kind: target.kind, target: target.target },
      },
      ctx.now(),
    );
    io.stdout(`cleared the rule for ${describeTarget(target)}\n`);
  },
});

export const clientRules = defineCommand({
  name: 'client rules',
  summary: 'List the block and trust rules for client_id URLs and domains',
  options: {},
  async run(ctx, _args, io) {
    const rules = await ctx.store.clients.metadataRules();
    io.stdout(
      table(
        rules.map((r) => ({
          decision: r.decision,
          kind: r.target_kind,
          target: r.target,
          since: isoTime(r.created_at),
        })),
      ),
    );
  },
});
