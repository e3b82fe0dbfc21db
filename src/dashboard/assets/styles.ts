// The dashboard's one stylesheet, served as /assets/dashboard.<hash>.css (assets.ts). Kept in
// a module so the compiled package carries it. Colours meet WCAG AA contrast (4.5:1 for text).
export const DASHBOARD_CSS = `
:root {
  --ink: #1b1f24; --muted: #4a5360; --paper: #ffffff; --wash: #f3f5f8; --line: #c9d0d9;
  --brand: #0b4f94; --brand-ink: #ffffff; --bar: #10263d; --ok: #146c2e; --warn: #7a4b00; --bad: #a1121b;
  --focus: #c25e00; --radius: 6px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--ink); background: var(--wash); line-height: 1.5;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--brand); }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: var(--paper); padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; top: .5rem; }
.top { background: var(--bar); color: var(--brand-ink); display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; padding: .6rem 1rem; }
.top a { color: var(--brand-ink); }
.brand { font-weight: 700; font-size: 1.15rem; text-decoration: none; }
.top nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
.top .who { margin-left: auto; display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
.top .who form { margin: 0; }
.top .who button { background: transparent; color: var(--brand-ink); border: 1px solid var(--brand-ink); }
.shell { display: grid; grid-template-columns: 14rem 1fr; gap: 1.5rem; max-width: 78rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
.shell.single { grid-template-columns: 1fr; }
.side h2 { font-size: .85rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 .4rem; }
.side ul { list-style: none; margin: 0; padding: 0; }
.side li a { display: block; padding: .45rem .6rem; border-radius: var(--radius); text-decoration: none; }
.side li a[aria-current="page"] { background: var(--brand); color: var(--brand-ink); font-weight: 600; }
main { min-width: 0; }
main > h1 { margin-top: 0; font-size: 1.6rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .6rem; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: 1rem 1.25rem; margin: 0 0 1.25rem; }
.card > h2:first-child { margin-top: 0; }
.notice { border-left: 5px solid var(--brand); background: var(--paper); padding: .75rem 1rem; margin: 0 0 1.25rem; border-radius: var(--radius); }
.notice.ok { border-color: var(--ok); }
.notice.warn { border-color: var(--warn); }
.notice.bad { border-color: var(--bad); }
.notice p { margin: .25rem 0; }
.state { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .9rem; font-weight: 600; border: 1px solid currentColor; }
.state.active { color: var(--ok); }
.state.pending { color: var(--warn); }
.state.off { color: var(--bad); }
table { border-collapse: collapse; width: 100%; background: var(--paper); }
caption { text-align: left; font-weight: 600; padding: .4rem 0; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--wash); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
/* A wide table scrolls sideways in its own box (a focusable region: the arrow keys scroll it
   too). Phones show no scroll bar until one scrolls, so a shadow marks each edge with more
   table beyond it: the paper-coloured covers scroll with the table and hide a shadow once its
   edge is reached. */
.table-wrap {
  overflow-x: auto; overscroll-behavior-x: contain; margin-bottom: 1.25rem; background-color: var(--paper);
  background-image: linear-gradient(to right, var(--paper) 40%, transparent), linear-gradient(to left, var(--paper) 40%, transparent),
    linear-gradient(to right, rgb(0 0 0 / 25%), transparent), linear-gradient(to left, rgb(0 0 0 / 25%), transparent);
  background-position: left center, right center, left center, right center;
  background-size: 2.5rem 100%, 2.5rem 100%, 0.9rem 100%, 0.9rem 100%;
  background-repeat: no-repeat;
  background-attachment: local, local, scroll, scroll;
}
.table-wrap table { background: transparent; }
form.stack { display: grid; gap: .9rem; max-width: 36rem; }
.field { display: grid; gap: .25rem; }
.field label, .field legend { font-weight: 600; }
.hint { color: var(--muted); font-size: .92rem; margin: 0; }
input[type=text], input[type=email], input[type=number], input[type=password], input[type=url], input[type=month], select, textarea {
  font: inherit; padding: .45rem .55rem; border: 1px solid #6b7684; border-radius: var(--radius); background: var(--paper); color: var(--ink); width: 100%;
}
textarea { min-height: 5rem; }
input[aria-invalid=true], select[aria-invalid=true], textarea[aria-invalid=true] { border: 2px solid var(--bad); }
.error { color: var(--bad); font-weight: 600; margin: 0; }
.error-summary { border: 2px solid var(--bad); background: var(--paper); padding: .75rem 1rem; border-radius: var(--radius); margin-bottom: 1rem; }
.error-summary h2 { margin: 0 0 .25rem; font-size: 1.05rem; color: var(--bad); }
button, .button { font: inherit; cursor: pointer; padding: .45rem .9rem; border-radius: var(--radius); border: 1px solid var(--brand); background: var(--brand); color: var(--brand-ink); text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: var(--paper); color: var(--brand); }
button.danger { background: var(--bad); border-color: var(--bad); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.actions form { margin: 0; }
.inline { display: inline; }
.check { display: flex; gap: .5rem; align-items: center; }
.secret { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.secret code { font-size: 1.05rem; padding: .4rem .6rem; background: var(--wash); border: 1px solid var(--line); border-radius: var(--radius); word-break: break-all; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; }
.chart-box { position: relative; height: 20rem; margin-bottom: 1rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 1rem; margin-bottom: 1.25rem; }
.tile { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: .8rem 1rem; }
.tile .figure { font-size: 1.6rem; font-weight: 700; display: block; }
@media (max-width: 46rem) {
  .shell { grid-template-columns: 1fr; gap: .75rem; padding: .75rem .75rem 2rem; }
  .side ul { display: flex; flex-wrap: wrap; gap: .25rem; }
  .side li a { border: 1px solid var(--line); background: var(--paper); padding: .45rem .7rem; }
  .top .who { margin-left: 0; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .4rem; }
  th, td { padding: .4rem; }
}
`;
