// Renders media/icon.svg to the 128×128 media/icon.png the marketplace needs (Chromium + playwright-core).
import { readFileSync } from 'node:fs';
import { launchChromium } from './lib/chromium.mjs';

const svg = readFileSync(new URL('../media/icon.svg', import.meta.url), 'utf8');
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
await page.screenshot({ path: new URL('../media/icon.png', import.meta.url).pathname, omitBackground: true });
await browser.close();
console.log('wrote media/icon.png');
