// The admin commands' backend on an open control plane: the CLI holding the data dir (or on
// PostgreSQL), and a node running a command for the CLI on its local management endpoint.
// The master key and the key ring are asked for only by the commands that need them.
import { statementCsv, usageLinesCsv } from '../manage/api/billing-csv.js';
import type { Sealer } from '../crypto/sealed.js';
import { listSigningKeys, rotateSigningKey } from '../identity/admin-keys.js';
import type { KeyRing } from '../identity/keyring.js';
import { generateClientId, generateClientSecret, hashSecret } from '../identity/secrets.js';
import { OutboxStore } from '../mail/outbox-store.js';
import type { MailSettings } from '../mail/settings.js';
import { mailView } from '../mail/view.js';
import { s3StoreFor, storageSecretContext } from '../storage/router.js';
import { BillingStore } from '../tenancy/billing-store.js';
import type { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import { SqlControlPlaneStore } from '../tenancy/sql-store.js';
import type { SqlClient } from '../db/sql.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { AdminBackend } from './admin-backend.js';

export interface LocalParts {
  store: ControlPlaneStore;
  /** The master-key sealer (storage credentials). */
  sealer?: () => Promise<Sealer>;
  /** A loaded signing key ring (`keys rotate|list`). */
  keyring?: () => Promise<KeyRing>;
  /** Operator API keys (`keys create-operator|list-operators|revoke-operator`). */
  operatorKeys?: OperatorKeysStore;
  /** The node's mail settings, from its config (the `mail` commands render with them). */
  mail?: MailSettings;
}

const notHere = (what: string) => new Error(`${what} not known here`);

export function localBackend(parts: LocalParts): AdminBackend {
  const { store } = parts;
  /** The SQL connection behind the store (billing and the outbox query it directly). */
  const sql = (): SqlClient => {
    if (store instanceof SqlControlPlaneStore) return store.db;
    throw new Error('this command needs the SQL control plane');
  };
  const billing = () => new BillingStore(sql());
  const mail = () => {
    // Against a remote node the mail commands go through its API (remote-backend.ts), never here.
    if (!parts.mail) throw notHere('the mail settings of the node are');
    return parts.mail;
  };
  const sealer = () => (parts.sealer ? parts.sealer() : Promise.reject(notHere('the master key is')));
  const keyring = () => (parts.keyring ? parts.keyring() : Promise.reject(notHere('the signing key ring is')));
  const operatorKeys = () => {
    if (!parts.operatorKeys) throw notHere('the operator keys are');
    return parts.operatorKeys;
  };

  return {
    store,
    async createApp(input) {
      const clientSecret = generateClientSecret();
      const app = await store.createApp({ ...input, clientId: generateClientId(), secretHash: await hashSecret(clientSecret), enabled: true });
      return { app, clientSecret };
    },
    async rotateSecret(appId) {
      const clientSecret = generateClientSecret();
      return { app: await store.setAppSecretHash(appId, await hashSecret(clientSecret)), clientSecret };
    },
    tenantUsage: (tenantId, month, granularity) => billing().usage(tenantId, month, granularity),
    tenantUsageLinesCsv: async (tenantId, month) => usageLinesCsv(await billing().usageLines({ tenantId, month })),
    async appUsage(app, month) {
      const plan = app.planId ? await store.getPlan(app.planId) : null;
      const charges = await store.listUsage({ appId: app.id, month });
      const byFormat: Record<string, number> = {};
      for (const c of charges) byFormat[c.format] = (byFormat[c.format] ?? 0) + c.units;
      return {
        unitsUsed: await store.unitsUsed(app.id, month),
        quota: plan ? plan.maxDocumentUnitsPerMonth : null,
        planId: plan?.id ?? null,
        planName: plan?.name ?? null,
        documents: charges.length,
        byFormat,
      };
    },
    appUsageLinesCsv: async (app, month) => usageLinesCsv(await billing().usageLines({ appId: app.id, month })),
    statement: (tenantId, month) => billing().statement(tenantId, month),
    statementCsv: async (tenantId, month) => statementCsv(await billing().statement(tenantId, month)),
    async mailList(filter) {
      const list = await new OutboxStore(sql()).list(filter);
      return list.map((m) => {
        const { text: _t, html: _h, ...rest } = mailView(m, mail());
        return rest;
      });
    },
    async mailShow(id) {
      const m = await new OutboxStore(sql()).get(id);
      return m ? mailView(m, mail()) : null;
    },
    async createStorageConfig(input, verify) {
      const seal = await sealer();
      const { secretAccessKey, ...config } = input;
      const cfg = await store.createStorageConfig({ ...config, secretAccessKeySealed: seal.seal(secretAccessKey, storageSecretContext(input.tenantId)) });
      let unreachable: string | null = null;
      if (verify) {
        const s3 = s3StoreFor(cfg, seal);
        try {
          await s3.ping();
        } catch (err) {
          unreachable = `${(err as Error).name}: ${(err as Error).message}`;
        } finally {
          s3.close();
        }
      }
      return { config: { ...cfg, secretAccessKeySealed: undefined }, unreachable };
    },
    rotateSigningKey: async () => rotateSigningKey(await keyring()),
    listSigningKeys: async () => listSigningKeys(await keyring()),
    async createOperatorKey(name) {
      const { key, record } = await operatorKeys().create(name);
      return { key, operatorKey: record };
    },
    listOperatorKeys: () => operatorKeys().list(),
    revokeOperatorKey: (id) => operatorKeys().revoke(id),
  };
}
