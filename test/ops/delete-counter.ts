/** A Kysely plugin recording how many rows each DELETE statement removed, in order. */
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

export class DeleteCounter implements KyselyPlugin {
  readonly deletes: number[] = [];
  private readonly pending = new WeakSet<object>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind === 'DeleteQueryNode') this.pending.add(args.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.pending.has(args.queryId)) this.deletes.push(Number(args.result.numAffectedRows ?? 0n));
    return args.result;
  }
}
