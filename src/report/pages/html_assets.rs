//! What report.html carries inline besides its content: the style sheet and the script (the
//! tooltip, the switch between the time and the data-written axis, the legend that hides and
//! shows a comparison's runs).

use crate::report::charts::Theme;
use crate::report::draw::{colors, css};

/// The style sheet of report.html in the colours of `theme`.
pub(super) fn style(theme: Theme) -> String {
    let c = colors(theme);
    let (panel, border) = match theme {
        Theme::Light => ("#f4f5f7", "#d0d3d8"),
        Theme::Dark => ("#2a2d34", "#454a53"),
    };
    format!(
        "body{{background:{bg};color:{fg};font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1240px;padding:16px 20px}}\
h1{{font-size:1.6em;margin:.3em 0}}h2{{font-size:1.2em;margin:1.2em 0 .5em}}h3{{font-size:1em}}\
.meta{{color:{muted};margin-top:0}}\
table{{border-collapse:collapse}}th,td{{border:1px solid {border};padding:4px 8px;text-align:left;vertical-align:top}}\
th{{background:{panel};font-weight:600}}.scroll{{overflow-x:auto}}\
.warnings{{border-left:4px solid #d55e00;padding-left:12px}}\
.controls{{display:flex;flex-wrap:wrap;gap:10px 24px;align-items:center;margin:8px 0}}\
button{{font:inherit;color:inherit;background:{panel};border:1px solid {border};border-radius:4px;padding:2px 10px;cursor:pointer}}\
.switch button.on{{background:{fg};color:{bg}}}\
.legend button{{margin:2px 4px 2px 0}}.legend button svg.swatch{{margin:0 6px 1px 0;vertical-align:middle}}\
.legend button:not(.on){{opacity:.45;text-decoration:line-through}}\
figure{{margin:12px 0 28px;position:relative}}figure svg{{width:100%;height:auto;display:block}}\
figcaption{{color:{muted};font-size:.9em}}a{{color:inherit}}\
.tip{{position:absolute;pointer-events:none;background:{bg};color:{fg};border:1px solid {border};border-radius:4px;padding:4px 8px;font-size:13px;white-space:nowrap;box-shadow:0 2px 6px rgba(0,0,0,.25)}}\
.guide{{position:absolute;pointer-events:none;width:1px;background:{fg};opacity:.5}}\
g.run.off{{display:none}}pre{{background:{panel};padding:8px;overflow-x:auto}}\
details{{margin:20px 0}}summary{{cursor:pointer;font-weight:600}}footer{{color:{muted};font-size:.9em;margin:24px 0}}",
        bg = css(c.bg),
        fg = css(c.title),
        muted = css(c.footer),
    )
}

/// The page's script: the axis switch, the run legend, and the tooltip. Plain ES2015, no
/// network, no eval.
pub(super) const SCRIPT: &str = r#"(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('slc-data').textContent);
  var unitsDec = data.units === 'decimal';
  function fmtBytes(b) {
    var k = unitsDec ? 1000 : 1024;
    var names = unitsDec ? ['B', 'kB', 'MB', 'GB', 'TB', 'PB'] : ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    var i = 0;
    while (Math.abs(b) >= k && i < names.length - 1) { b /= k; i++; }
    return (i === 0 ? b.toFixed(0) : b >= 100 ? b.toFixed(0) : b >= 10 ? b.toFixed(1) : b.toFixed(2)) + ' ' + names[i];
  }
  function fmtRate(r) {
    var v = r / data.mega;
    return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + (unitsDec ? ' MB/s' : ' MiB/s');
  }
  function fmtTime(s) {
    if (s < 1) { return (s * 1000).toFixed(0) + ' ms'; }
    if (s < 120) { return s.toFixed(1) + ' s'; }
    if (s < 7200) { return (s / 60).toFixed(1) + ' min'; }
    return (s / 3600).toFixed(2) + ' h';
  }
  // The axis switch.
  var buttons = document.querySelectorAll('.switch button');
  Array.prototype.forEach.call(buttons, function (b) {
    b.addEventListener('click', function () {
      var x = b.getAttribute('data-x');
      Array.prototype.forEach.call(buttons, function (o) { o.classList.toggle('on', o === b); });
      Array.prototype.forEach.call(document.querySelectorAll('figure.sw'), function (f) {
        f.hidden = f.getAttribute('data-x') !== x;
      });
    });
  });
  // The run legend of a comparison.
  var hiddenRuns = {};
  Array.prototype.forEach.call(document.querySelectorAll('.legend button.run'), function (b) {
    b.addEventListener('click', function () {
      var i = b.getAttribute('data-run');
      hiddenRuns[i] = !hiddenRuns[i];
      b.classList.toggle('on', !hiddenRuns[i]);
      Array.prototype.forEach.call(document.querySelectorAll('g.run[data-run="' + i + '"]'), function (g) {
        g.classList.toggle('off', !!hiddenRuns[i]);
      });
    });
  });
  // The tooltip.
  function nearest(arr, v) {
    var lo = 0, hi = arr.length - 1;
    if (hi < 0) { return -1; }
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (arr[mid] < v) { lo = mid; } else { hi = mid; }
    }
    return Math.abs(arr[lo] - v) <= Math.abs(arr[hi] - v) ? lo : hi;
  }
  Array.prototype.forEach.call(document.querySelectorAll('figure.chart'), function (fig) {
    var meta = data.charts[+fig.getAttribute('data-chart')];
    var svg = fig.querySelector('svg');
    var tip = fig.querySelector('.tip');
    var guide = fig.querySelector('.guide');
    if (!meta || !svg || !tip || !guide) { return; }
    svg.addEventListener('mousemove', function (ev) {
      var box = svg.getBoundingClientRect();
      var k = box.width / meta.w;
      var px = (ev.clientX - box.left) / k, py = (ev.clientY - box.top) / k;
      var p = meta.plot;
      if (px < p[0] || px > p[2] || py < p[1] || py > p[3]) {
        tip.hidden = true; guide.hidden = true; return;
      }
      var xv = meta.xmin + (px - p[0]) / (p[2] - p[0]) * (meta.xmax - meta.xmin);
      var lines = [];
      data.runs.forEach(function (r, i) {
        if (hiddenRuns[i]) { return; }
        var raw = xv * meta.xdiv + (meta.shift[i] || 0);
        var j = nearest(meta.x === 'time' ? r.t : r.b, raw);
        if (j < 0) { return; }
        var text = fmtTime(r.t[j]) + ' · ' + fmtBytes(r.b[j]) + ' ' + (r.moved || 'written') + ' · ' + fmtRate(r.r[j]);
        lines.push(data.runs.length > 1 ? r.name + ': ' + text : text);
      });
      tip.textContent = '';
      lines.forEach(function (l) { var d = document.createElement('div'); d.textContent = l; tip.appendChild(d); });
      tip.hidden = lines.length === 0;
      var figBox = fig.getBoundingClientRect();
      var left = ev.clientX - figBox.left + 14, top = ev.clientY - figBox.top + 14;
      if (left + tip.offsetWidth > figBox.width) { left = ev.clientX - figBox.left - tip.offsetWidth - 14; }
      tip.style.left = left + 'px';
      tip.style.top = top + 'px';
      guide.hidden = false;
      guide.style.left = (ev.clientX - figBox.left) + 'px';
      guide.style.top = (box.top - figBox.top + p[1] * k) + 'px';
      guide.style.height = ((p[3] - p[1]) * k) + 'px';
    });
    svg.addEventListener('mouseleave', function () { tip.hidden = true; guide.hidden = true; });
  });
  document.body.setAttribute('data-ready', 'yes');
  // With #selftest in the address, exercise the page once and record what happened in the
  // body's data-selftest attribute (the browser tests read it from the DOM).
  if (location.hash === '#selftest') {
    var out = [];
    var dataBtn = document.querySelector('.switch button[data-x="data"]');
    var timeBtn = document.querySelector('.switch button[data-x="time"]');
    var t0 = document.querySelector('figure.sw[data-x="time"]');
    var d0 = document.querySelector('figure.sw[data-x="data"]');
    if (dataBtn && t0 && d0) {
      dataBtn.click();
      out.push('switch:' + (t0.hidden && !d0.hidden ? 'ok' : 'fail'));
      timeBtn.click();
    }
    var leg = document.querySelector('.legend button.run');
    if (leg) {
      leg.click();
      var g = document.querySelector('g.run[data-run="0"]');
      out.push('legend:' + (g && g.classList.contains('off') && getComputedStyle(g).display === 'none' ? 'ok' : 'fail'));
      leg.click();
    }
    var fig = document.querySelector('figure.chart:not([hidden])');
    if (fig) {
      var meta = data.charts[+fig.getAttribute('data-chart')];
      var svg = fig.querySelector('svg');
      var box = svg.getBoundingClientRect();
      var k = box.width / meta.w;
      var cx = box.left + k * (meta.plot[0] + meta.plot[2]) / 2;
      var cy = box.top + k * (meta.plot[1] + meta.plot[3]) / 2;
      svg.dispatchEvent(new MouseEvent('mousemove', { clientX: cx, clientY: cy, bubbles: true }));
      var tip = fig.querySelector('.tip');
      out.push('tooltip:' + (!tip.hidden && /written|read/.test(tip.textContent) ? 'ok' : 'fail') + ':' + tip.textContent);
    }
    document.body.setAttribute('data-selftest', out.join('|'));
  }
})();
"#;
