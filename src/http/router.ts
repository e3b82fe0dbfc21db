// Path router with :params. Static segments are matched before parameters, and a path
// that exists under other methods yields the list for a 405 with Allow.
import type { RouteDef } from './route.js';

interface Node {
  statics: Map<string, Node>;
  param: { name: string; node: Node } | null;
  routes: Map<string, RouteDef>;
}

const newNode = (): Node => ({ statics: new Map(), param: null, routes: new Map() });

export type Match =
  | { kind: 'found'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[]; routes: RouteDef[] }
  | { kind: 'not_found' };

/** Params of routes without path parameters: shared, so a static match allocates nothing. */
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class Router {
  private readonly root = newNode();
  readonly routes: RouteDef[] = [];
  /** Exact path → method → ready-made match, for routes without parameters (the hot path). */
  private readonly exact = new Map<string, Map<string, Match>>();

  add(route: RouteDef): void {
    let node = this.root;
    for (const seg of split(route.path)) {
      if (seg.startsWith(':')) {
        const name = seg.slice(1);
        if (node.param && node.param.name !== name) throw new Error(`route ${route.path}: parameter :${name} conflicts with :${node.param.name}`);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.statics.get(seg);
        if (!next) node.statics.set(seg, (next = newNode()));
        node = next;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    node.routes.set(route.method, route);
    this.routes.push(route);
    if (!route.path.includes(':')) {
      let byMethod = this.exact.get(route.path);
      if (!byMethod) this.exact.set(route.path, (byMethod = new Map()));
      const found: Match = { kind: 'found', route, params: NO_PARAMS };
      byMethod.set(route.method, found);
      if (route.method === 'GET') byMethod.set('HEAD', found);
    }
  }

  match(method: string, path: string): Match {
    const hit = this.exact.get(path)?.get(method);
    if (hit) return hit;
    const params: Record<string, string> = {};
    const node = find(this.root, split(path), 0, params);
    if (!node || node.routes.size === 0) return { kind: 'not_found' };
    const route = node.routes.get(method === 'HEAD' ? 'GET' : method);
    if (route) return { kind: 'found', route, params };
    const allow = [...node.routes.keys()];
    if (node.routes.has('GET')) allow.push('HEAD');
    return { kind: 'method_not_allowed', allow: [...allow, 'OPTIONS'], routes: [...node.routes.values()] };
  }
}

function split(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function find(node: Node, segs: string[], i: number, params: Record<string, string>): Node | null {
  if (i === segs.length) return node;
  const seg = segs[i];
  const s = node.statics.get(seg);
  if (s) {
    const hit = find(s, segs, i + 1, params);
    if (hit && hit.routes.size) return hit;
  }
  if (node.param) {
    let value: string;
    try {
      value = decodeURIComponent(seg);
    } catch {
      return null;
    }
    const hit = find(node.param.node, segs, i + 1, params);
    if (hit && hit.routes.size) {
      params[node.param.name] = value;
      return hit;
    }
  }
  return null;
}
