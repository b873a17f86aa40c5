/**
 * A Kysely plugin recording how many rows each DELETE statement removed, in order, and from which
 * table. A DELETE … RETURNING answers its rows (SQLite's driver then counts no affected rows).
 */
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
} from 'kysely';

export class DeleteCounter implements KyselyPlugin {
  readonly deletes: number[] = [];
  /** The table of each DELETE, in the order of `deletes`. */
  readonly tables: string[] = [];
  private readonly pending = new WeakMap<object, string>();

  /** Called with each DELETE's table and row count once it has run, before its caller sees it. */
  constructor(private readonly onDelete: (table: string, rows: number) => void = () => undefined) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node;
    if (node.kind === 'DeleteQueryNode') {
      const from = node.from.froms[0];
      this.pending.set(args.queryId, from && TableNode.is(from) ? from.table.identifier.name : '?');
    }
    return node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const table = this.pending.get(args.queryId);
    if (table !== undefined) {
      const rows = Number(args.result.numAffectedRows ?? BigInt(args.result.rows.length));
      this.deletes.push(rows);
      this.tables.push(table);
      this.onDelete(table, rows);
    }
    return args.result;
  }
}
