// Static assets, served from the package (nothing from a CDN): the stylesheet, the client
// script and chart.js's UMD build from node_modules. Each URL carries a content hash, so
// they are cached for a year and a new release is a new URL.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Reply, RouteDef } from '../../http/route.js';
import { problems } from '../../http/problem.js';
import { dashboardClient } from '../assets/client-script.js';
import { DASHBOARD_CSS } from '../assets/styles.js';

interface Asset {
  /** File name with its hash, e.g. dashboard.1a2b3c4d5e.css. */
  file: string;
  contentType: string;
  body: string;
}

export interface AssetUrls {
  css: string;
  script: string;
  chart: string;
}

const hashed = (stem: string, ext: string, body: string) => `${stem}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

function chartJsBuild(): string {
  // chart.js exports only its modules; its UMD build sits beside the CommonJS entry.
  const entry = createRequire(import.meta.url).resolve('chart.js');
  return readFileSync(path.join(path.dirname(entry), 'chart.umd.min.js'), 'utf8');
}

/** Loaded once per dashboard: a few hundred KiB held in memory. */
export function loadAssets(basePath: string): { urls: AssetUrls; routes: RouteDef[] } {
  const css = DASHBOARD_CSS;
  const script = `"use strict";(${dashboardClient.toString()})();\n`;
  const chart = chartJsBuild();
  const assets: Asset[] = [
    { file: hashed('dashboard', 'css', css), contentType: 'text/css; charset=utf-8', body: css },
    { file: hashed('dashboard', 'js', script), contentType: 'text/javascript; charset=utf-8', body: script },
    { file: hashed('chart.umd', 'js', chart), contentType: 'text/javascript; charset=utf-8', body: chart },
  ];
  const byFile = new Map(assets.map((a) => [a.file, a]));
  const prefix = `${basePath}/assets/`;
  const route: RouteDef<Record<string, never>> = {
    method: 'GET',
    path: `${prefix}:file`,
    operationId: 'dashboardAsset',
    summary: 'A dashboard stylesheet or script (content-hashed URL, cached for a year)',
    tags: ['dashboard'],
    auth: 'public',
    api: 'dashboard',
    responses: { 200: { description: 'The asset.' }, 404: { description: 'No such asset (an old hash after an upgrade).' } },
    handler: async (ctx): Promise<Reply> => {
      const asset = byFile.get(ctx.params.file);
      if (!asset) throw problems.notFound(`No dashboard asset ${JSON.stringify(ctx.params.file)}.`);
      return {
        status: 200,
        text: asset.body,
        contentType: asset.contentType,
        headers: { 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin' },
      };
    },
  };
  return {
    urls: { css: prefix + assets[0].file, script: prefix + assets[1].file, chart: prefix + assets[2].file },
    routes: [route],
  };
}
