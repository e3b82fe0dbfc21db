// Token signing keys: ES256 key pairs kept in the control-plane store (private halves sealed
// with the master key), shared by every node. The newest unretired key signs; every key
// keeps verifying until the last token it can have signed has expired, then drops out of
// the JWKS. Nodes pick up keys created elsewhere by refreshing the list periodically and,
// rate-limited, whenever a token names a kid they do not know.
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import type { Logger } from 'pino';
import type { Sealer } from '../crypto/sealed.js';
import type { ControlPlaneStore, SigningKey } from '../tenancy/types.js';

export const TOKEN_ALG = 'ES256' as const;
/** Access token lifetime (spec: 15 minutes). */
export const TOKEN_LIFETIME_SECONDS = 900;

export interface KeyRingOptions {
  store: ControlPlaneStore;
  sealer: Sealer;
  logger?: Logger;
  /** Lifetime of the tokens these keys sign, seconds (900). */
  tokenLifetimeSeconds?: number;
  /**
   * Extra time a retired key keeps verifying after retiredAt + token lifetime: covers clock
   * skew between nodes and the refresh lag of a node still signing with it (120 s).
   */
  retiredGraceSeconds?: number;
  /** How old the in-memory key list may get before it is reloaded from the store (60 s). */
  refreshIntervalMs?: number;
  /** Minimum time between reloads caused by tokens naming an unknown kid (5 s). */
  unknownKidReloadIntervalMs?: number;
  /** Clock (epoch ms), for tests. */
  now?: () => number;
}

interface LoadedKey {
  record: SigningKey;
  verifyKey: CryptoKey;
  publicJwk: JWK;
  createdAt: number;
  retiredAt: number | null;
}

export interface SigningKeyInfo {
  kid: string;
  createdAt: string;
  retiredAt: string | null;
  /** Signs new tokens on this node now. */
  signing: boolean;
  /** Still accepted for verification and published in the JWKS. */
  verifying: boolean;
  /** When it stops verifying (retired keys only). */
  verifiesUntil: string | null;
}

const sealContext = (kid: string) => `signing-key:${kid}`;

/** Generates a new ES256 key pair as a store record (private key sealed). */
export async function createSigningKeyRecord(sealer: Sealer, createdAt: Date): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const pem = await exportPKCS8(privateKey);
  return {
    kid,
    alg: TOKEN_ALG,
    publicJwk: { ...publicJwk, kid, alg: TOKEN_ALG, use: 'sig' },
    privateKeySealed: sealer.seal(pem, sealContext(kid)),
    createdAt: createdAt.toISOString(),
    retiredAt: null,
  };
}

export class KeyRing {
  private readonly store: ControlPlaneStore;
  private readonly sealer: Sealer;
  private readonly logger: Logger | undefined;
  readonly tokenLifetimeSeconds: number;
  readonly retiredGraceSeconds: number;
  private readonly refreshIntervalMs: number;
  private readonly unknownKidReloadIntervalMs: number;
  readonly now: () => number;

  private keys = new Map<string, LoadedKey>();
  private signer: LoadedKey | null = null;
  private readonly privateKeys = new Map<string, Promise<CryptoKey>>();
  private loadedAt = -Infinity;
  private reloading: Promise<void> | null = null;
  private lastUnknownKidReload = -Infinity;

  constructor(opts: KeyRingOptions) {
    this.store = opts.store;
    this.sealer = opts.sealer;
    this.logger = opts.logger;
    this.tokenLifetimeSeconds = opts.tokenLifetimeSeconds ?? TOKEN_LIFETIME_SECONDS;
    this.retiredGraceSeconds = opts.retiredGraceSeconds ?? 120;
    this.refreshIntervalMs = opts.refreshIntervalMs ?? 60_000;
    this.unknownKidReloadIntervalMs = opts.unknownKidReloadIntervalMs ?? 5_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Loads the keys and makes sure one can sign: creates the first key when the store has
   * no unretired key. Two nodes doing this at once may both create one; both keys are
   * published and verify, and every node then signs with the same (newest) one.
   * Fails when the signer's private key cannot be opened (a different master key).
   */
  async init(): Promise<void> {
    await this.reload();
    if (!this.signer) {
      await this.addKey();
      await this.reload();
    }
    await this.signingKey();
  }

  /** Re-reads the key list from the store (single-flight). */
  reload(): Promise<void> {
    this.reloading ??= this.doReload().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async doReload(): Promise<void> {
    const records = await this.store.listSigningKeys();
    const next = new Map<string, LoadedKey>();
    for (const record of records) {
      if (record.alg !== TOKEN_ALG) continue;
      const known = this.keys.get(record.kid);
      try {
        const publicJwk = pickPublic(record.publicJwk);
        const verifyKey = known?.verifyKey ?? ((await importJWK(publicJwk, TOKEN_ALG)) as CryptoKey);
        next.set(record.kid, {
          record,
          verifyKey,
          publicJwk,
          createdAt: Date.parse(record.createdAt),
          retiredAt: record.retiredAt ? Date.parse(record.retiredAt) : null,
        });
      } catch (err) {
        this.logger?.error({ err, kid: record.kid }, 'signing key in the store has an unusable public key; ignored');
      }
    }
    this.keys = next;
    this.loadedAt = this.now();
    const signer = pickSigner([...next.values()]);
    if (signer?.record.kid !== this.signer?.record.kid) {
      this.logger?.info({ kid: signer?.record.kid ?? null, previous: this.signer?.record.kid ?? null }, 'token signing key selected');
    }
    this.signer = signer;
    if (signer) this.retireRaceLosers([...next.values()], signer);
  }

  /**
   * Nodes that boot together on an empty table may each create a key. Every node signs with
   * the newest one (after its next refresh at the latest); the others are retired here so they
   * leave the JWKS once their tokens have expired, like keys replaced by a rotation.
   */
  private retireRaceLosers(keys: LoadedKey[], signer: LoadedKey): void {
    const losers = keys.filter((k) => k !== signer && k.retiredAt === null);
    if (losers.length === 0) return;
    const at = new Date(this.now()).toISOString();
    for (const k of losers) {
      k.retiredAt = Date.parse(at);
      k.record = { ...k.record, retiredAt: at };
      this.store
        .retireSigningKey(k.record.kid, at)
        .then(() => this.logger?.info({ kid: k.record.kid, signer: signer.record.kid }, 'older unretired signing key retired'))
        .catch((err) => this.logger?.warn({ err, kid: k.record.kid }, 'could not retire an older signing key'));
    }
  }

  private isStale(): boolean {
    return this.now() - this.loadedAt >= this.refreshIntervalMs;
  }

  /** Starts a background reload when the list is older than the refresh interval. */
  private refreshInBackground(): void {
    if (!this.isStale() || this.reloading) return;
    this.reload().catch((err) => this.logger?.warn({ err }, 'signing key refresh failed; keeping the keys already loaded'));
  }

  /** The key new tokens are signed with. Reloads first when the list is stale. */
  async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    if (this.isStale()) await this.reload();
    if (!this.signer) {
      // Every key was retired elsewhere without a successor: make one.
      await this.addKey();
      await this.reload();
    }
    const signer = this.signer;
    if (!signer) throw new Error('no token signing key is available');
    const kid = signer.record.kid;
    let key = this.privateKeys.get(kid);
    if (!key) {
      key = this.openPrivateKey(signer.record);
      this.privateKeys.set(kid, key);
      key.catch(() => this.privateKeys.delete(kid));
    }
    return { kid, key: await key };
  }

  private async openPrivateKey(record: SigningKey): Promise<CryptoKey> {
    let pem: string;
    try {
      pem = this.sealer.open(record.privateKeySealed, sealContext(record.kid));
    } catch {
      throw new Error(
        `cannot open token signing key ${record.kid}: it was sealed with a different master key (DOCPARSE_MASTER_KEY must be the same on every node)`,
      );
    }
    return importPKCS8(pem, TOKEN_ALG);
  }

  /** Whether a key is still accepted (and published) at time `at`. */
  private verifies(k: LoadedKey, at: number): boolean {
    if (k.retiredAt === null) return true;
    return at < k.retiredAt + (this.tokenLifetimeSeconds + this.retiredGraceSeconds) * 1000;
  }

  /**
   * The public key for a token's kid, or null when no verifying key has it. An unknown kid
   * triggers a reload of the list (at most once per unknownKidReloadIntervalMs), so tokens
   * signed by a key another node just created verify here too.
   */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    this.refreshInBackground();
    let k = this.keys.get(kid);
    if (!k) {
      if (this.reloading) {
        await this.reloading.catch(() => {});
      } else if (this.now() - this.lastUnknownKidReload >= this.unknownKidReloadIntervalMs) {
        this.lastUnknownKidReload = this.now();
        await this.reload().catch((err) => this.logger?.warn({ err }, 'signing key reload failed'));
      }
      k = this.keys.get(kid);
      if (!k) return null;
    }
    return this.verifies(k, this.now()) ? k.verifyKey : null;
  }

  /** The public JSON Web Key Set: every key that still verifies. */
  jwks(): { keys: JWK[] } {
    this.refreshInBackground();
    const at = this.now();
    return {
      keys: [...this.keys.values()]
        .filter((k) => this.verifies(k, at))
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((k) => ({ ...k.publicJwk, kid: k.record.kid, alg: TOKEN_ALG, use: 'sig' })),
    };
  }

  /** Key list for the admin command (reloads first). */
  async describe(): Promise<SigningKeyInfo[]> {
    await this.reload();
    const at = this.now();
    return [...this.keys.values()].map((k) => ({
      kid: k.record.kid,
      createdAt: k.record.createdAt,
      retiredAt: k.record.retiredAt,
      signing: k === this.signer,
      verifying: this.verifies(k, at),
      verifiesUntil: k.retiredAt === null ? null : new Date(k.retiredAt + (this.tokenLifetimeSeconds + this.retiredGraceSeconds) * 1000).toISOString(),
    }));
  }

  /**
   * Rotation: creates a new key, which signs from now on, and retires every other unretired
   * key (they keep verifying until their last token has expired). Other nodes switch to the
   * new key on their next refresh (≤ refreshIntervalMs); retiredGraceSeconds covers that lag.
   */
  async rotate(): Promise<{ kid: string; retired: string[] }> {
    await this.reload();
    const previous = [...this.keys.values()].filter((k) => k.retiredAt === null).map((k) => k.record.kid);
    const record = await this.addKey();
    const at = new Date(this.now()).toISOString();
    for (const kid of previous) await this.store.retireSigningKey(kid, at);
    await this.reload();
    this.logger?.info({ kid: record.kid, retired: previous }, 'token signing key rotated');
    return { kid: record.kid, retired: previous };
  }

  private async addKey(): Promise<SigningKey> {
    // createdAt must sort after every existing key so this one is picked as the signer.
    let created = this.now();
    for (const k of this.keys.values()) created = Math.max(created, k.createdAt + 1);
    const record = await createSigningKeyRecord(this.sealer, new Date(created));
    await this.store.insertSigningKey(record);
    this.logger?.info({ kid: record.kid }, 'token signing key created');
    return record;
  }
}

/** Newest unretired key; ties broken by kid so every node picks the same one. */
function pickSigner(keys: LoadedKey[]): LoadedKey | null {
  let best: LoadedKey | null = null;
  for (const k of keys) {
    if (k.retiredAt !== null) continue;
    if (!best || k.createdAt > best.createdAt || (k.createdAt === best.createdAt && k.record.kid > best.record.kid)) best = k;
  }
  return best;
}

function pickPublic(jwk: Record<string, unknown>): JWK {
  const { kty, crv, x, y } = jwk as { kty?: unknown; crv?: unknown; x?: unknown; y?: unknown };
  if (kty !== 'EC' || crv !== 'P-256' || typeof x !== 'string' || typeof y !== 'string') throw new Error('not a P-256 public key');
  return { kty, crv, x, y };
}
