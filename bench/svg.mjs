// Tiny SVG chart writers for bench/run.mjs: horizontal bars and a line chart. No dependencies.
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const fmt = (v) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(v >= 10 ? 1 : 2));
const COLORS = ['#0b6bcb', '#e07b00', '#2e9d57', '#b3261e', '#7a4fc2', '#5b6670'];

/** rows: [{ label, value }]; the first row is ringpool and drawn in the accent colour. */
export function bars({ title, unit, rows, note = '' }) {
  const w = 640, left = 190, barH = 22, gap = 8, top = 40;
  const h = top + rows.length * (barH + gap) + 30;
  const max = Math.max(...rows.map((r) => r.value)) || 1;
  const scale = (w - left - 90) / max;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="system-ui, sans-serif" font-size="13">`,
    `<rect width="${w}" height="${h}" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${esc(title)}</text>`];
  rows.forEach((r, i) => {
    const y = top + i * (barH + gap);
    out.push(`<text x="${left - 8}" y="${y + barH * 0.7}" text-anchor="end">${esc(r.label)}</text>`,
      `<rect x="${left}" y="${y}" width="${Math.max(1, r.value * scale)}" height="${barH}" fill="${r.label.startsWith('ringpool') ? COLORS[0] : '#9aa5b1'}"/>`,
      `<text x="${left + r.value * scale + 6}" y="${y + barH * 0.7}">${fmt(r.value)}</text>`);
  });
  out.push(`<text x="12" y="${h - 10}" fill="#5b6670" font-size="11">${esc(unit)}${note ? ` · ${esc(note)}` : ''}</text>`, '</svg>');
  return out.join('\n');
}

/** series: { name: [y for each x] }, xs: x values. */
export function lines({ title, unit, xs, series, xlabel }) {
  const w = 640, h = 320, l = 70, r = 170, t = 40, b = 40;
  const max = Math.max(...Object.values(series).flat()) || 1;
  const X = (i) => l + (xs.length === 1 ? 0 : (i / (xs.length - 1)) * (w - l - r));
  const Y = (v) => t + (1 - v / max) * (h - t - b);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${w}" height="${h}" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${esc(title)}</text>`,
    `<line x1="${l}" y1="${h - b}" x2="${w - r}" y2="${h - b}" stroke="#999"/>`,
    `<line x1="${l}" y1="${t}" x2="${l}" y2="${h - b}" stroke="#999"/>`,
    `<text x="${l - 6}" y="${t + 4}" text-anchor="end">${fmt(max)}</text>`,
    `<text x="${l - 6}" y="${h - b}" text-anchor="end">0</text>`,
    `<text x="${(l + w - r) / 2}" y="${h - 8}" text-anchor="middle" fill="#5b6670">${esc(xlabel)} · ${esc(unit)}</text>`];
  xs.forEach((x, i) => out.push(`<text x="${X(i)}" y="${h - b + 16}" text-anchor="middle">${esc(x)}</text>`));
  Object.entries(series).forEach(([name, ys], k) => {
    const c = COLORS[k % COLORS.length];
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="2.5" points="${ys.map((v, i) => `${X(i)},${Y(v)}`).join(' ')}"/>`);
    ys.forEach((v, i) => out.push(`<circle cx="${X(i)}" cy="${Y(v)}" r="3.5" fill="${c}"/>`));
    out.push(`<rect x="${w - r + 14}" y="${t + k * 20 - 9}" width="12" height="12" fill="${c}"/>`, `<text x="${w - r + 32}" y="${t + k * 20 + 1}">${esc(name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
