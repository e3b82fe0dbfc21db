// The shape of one control-plane schema migration, apart from the list (migrations.ts) so
// that the files holding later migrations need not import the list that includes them.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
