// Each app's webhook signing secret (migration 8), sealed at rest under the master key and
// bound to its app, like tenants' storage credentials.
import type { Sealer } from '../crypto/sealed.js';
import type { SqlClient } from '../db/sql.js';
import { generateWebhookSecret } from './signature.js';

const context = (appId: string) => `docparse webhook secret:${appId}`;

export interface WebhookSecret {
  secret: string;
  rotatedAt: string;
}

export class WebhookSecretStore {
  constructor(
    private readonly db: SqlClient,
    private readonly sealer: Sealer,
  ) {}

  async get(appId: string): Promise<WebhookSecret | null> {
    const { rows } = await this.db.query<{ secret_sealed: string; rotated_at: Date | string }>(
      'SELECT secret_sealed, rotated_at FROM app_webhook_secrets WHERE app_id = $1',
      [appId],
    );
    if (!rows[0]) return null;
    return { secret: this.sealer.open(rows[0].secret_sealed, context(appId)), rotatedAt: new Date(rows[0].rotated_at).toISOString() };
  }

  /** Whether the app has a secret (no unsealing: the upload path asks this). */
  async has(appId: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM app_webhook_secrets WHERE app_id = $1', [appId]);
    return rows.length > 0;
  }

  /** A new secret for the app, replacing the old one at once (deliveries from now on are signed with it). */
  async rotate(appId: string): Promise<WebhookSecret> {
    const secret = generateWebhookSecret();
    const { rows } = await this.db.query<{ rotated_at: Date | string }>(
      `INSERT INTO app_webhook_secrets (app_id, secret_sealed) VALUES ($1, $2)
       ON CONFLICT (app_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, rotated_at = now()
       RETURNING rotated_at`,
      [appId, this.sealer.seal(secret, context(appId))],
    );
    return { secret, rotatedAt: new Date(rows[0].rotated_at).toISOString() };
  }
}
