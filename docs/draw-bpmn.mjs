// Draw a BPMN file as bpmn-js renders it, in headless Chromium, into a PNG.
//
//   node docs/draw-bpmn.mjs PLAN.bpmn OUT.png [SUBPROCESS_ID]
//
// Needs bpmn-js and playwright-core installed with npm in a scratch
// directory (NODE_PATH pointing at its node_modules) and Debian's
// chromium at /usr/bin/chromium. With SUBPROCESS_ID, draws the diagram of
// that collapsed subprocess (what a modeler shows when you open it), or
// of that process of the library (toscanini_run, …).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.NODE_PATH || process.cwd(), 'x.js'));
const { chromium } = require('playwright-core');
const viewer = require.resolve('bpmn-js/dist/bpmn-viewer.production.min.js');

const [file, out, plane] = process.argv.slice(2);
const xml = readFileSync(file, 'utf8');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 900 }, deviceScaleFactor: 1 });
await page.setContent('<html><body style="margin:0;background:white"><div id="c" style="width:100vw;height:100vh"></div></body></html>');
await page.addScriptTag({ path: viewer });
const size = await page.evaluate(async ({ xml, plane }) => {
  const v = new BpmnJS({ container: '#c' });
  // A process of its own (the library's) has a diagram of its own.
  const diagram = plane && xml.includes(`id="${plane}_diagram"`) ? plane + '_diagram' : undefined;
  const { warnings } = await v.importXML(xml, diagram);
  if (plane && !diagram) v.get('canvas').setRootElement(v.get('canvas').findRoot(plane + '_plane') || v.get('elementRegistry').get(plane + '_plane'));
  const box = v.get('canvas').getActiveLayer().getBBox();
  return { w: Math.ceil(box.width + box.x + 40), h: Math.ceil(box.height + box.y + 40), warnings: warnings.map(String) };
}, { xml, plane });
if (size.warnings.length) console.error(size.warnings.join('\n'));
await page.setViewportSize({ width: Math.min(Math.max(size.w, 400), 4000), height: Math.min(Math.max(size.h, 300), 3000) });
await page.evaluate(() => {
  const c = document.querySelector('#c');
  c.style.width = '100vw'; c.style.height = '100vh';
});
await page.evaluate(() => window.dispatchEvent(new Event('resize')));
await page.screenshot({ path: out, fullPage: true });
await browser.close();
console.log(`${out}: ${size.w}x${size.h}`);
