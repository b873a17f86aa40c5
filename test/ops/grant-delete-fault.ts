/**
 * A Kysely plugin that, once armed, fails the next DELETE from `grants` before it reaches the
 * database: a prune cut short between its token deletes and its grant check.
 */
import { type KyselyPlugin, type PluginTransformQueryArgs, type RootOperationNode, TableNode } from 'kysely';

export class GrantDeleteFault implements KyselyPlugin {
  armed = false;

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node;
    if (this.armed && node.kind === 'DeleteQueryNode') {
      const from = node.from.froms[0];
      if (from && TableNode.is(from) && from.table.identifier.name === 'grants') {
        this.armed = false;
        throw new Error('injected database fault: DELETE FROM grants');
      }
    }
    return node;
  }

  async transformResult(args: Parameters<NonNullable<KyselyPlugin['transformResult']>>[0]) {
    return args.result;
  }
}
