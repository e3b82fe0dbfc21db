// Where a sign-in may return to: pages of the dashboard only, whatever way a URL is spelled to
// lead elsewhere (an open redirect would let a link to the real sign-in end on another site).
import { describe, expect, it } from 'vitest';
import { dashboardBasePath, safeNextPath } from '../../../src/dashboard/auth/next-path.js';

describe('safeNextPath', () => {
  it('keeps a page of the dashboard, with its query, normalised', () => {
    expect(safeNextPath('/dashboard', '/dashboard')).toBe('/dashboard');
    expect(safeNextPath('/dashboard/', '/dashboard')).toBe('/dashboard/');
    expect(safeNextPath('/dashboard/tenants/t1/apps?tab=keys', '/dashboard')).toBe('/dashboard/tenants/t1/apps?tab=keys');
    expect(safeNextPath('/dashboard/a/./b/../c', '/dashboard')).toBe('/dashboard/a/c');
    expect(safeNextPath('/tenants', '')).toBe('/tenants');
  });

  it('refuses other sites, in every spelling a browser would follow', () => {
    for (const next of [
      'https://evil.test/',
      'http:evil.test',
      '//evil.test',
      '///evil.test',
      '/\\evil.test',
      '\\\\evil.test',
      '/\t/evil.test',
      '/dashboard\n//evil.test',
      'javascript:alert(1)',
      'evil.test/dashboard',
      '',
    ]) {
      expect(safeNextPath(next, '/dashboard'), JSON.stringify(next)).toBeNull();
    }
  });

  it('refuses paths outside the dashboard, also after dot segments, and the sign-in routes themselves', () => {
    for (const next of [
      '/manage/v1/tenants',
      '/dashboard/../manage/v1/tenants',
      '/dashboard/%2e%2e/manage',
      '/dashboardx',
      '/dashboard-evil/',
      '/dashboard/auth/logout',
      '/dashboard/auth/login?next=/x',
    ]) {
      expect(safeNextPath(next, '/dashboard'), next).toBeNull();
    }
  });

  it('takes the base path from {dashboard_url}', () => {
    expect(dashboardBasePath('http://localhost:8080/dashboard')).toBe('/dashboard');
    expect(dashboardBasePath('https://dash.example.com/')).toBe('');
    expect(dashboardBasePath('https://example.com/tools/console/')).toBe('/tools/console');
  });
});
