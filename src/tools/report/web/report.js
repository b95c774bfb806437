// gpubench-report's page script, embedded by the build (cmake/EmbedText.cmake). Draws the charts
// from the embedded data (#gpubench-data), makes the table sortable and writes what happened into
// #gpubench-status (charts expected and drawn, script errors) for tests and readers.
(function () {
  'use strict';
  var scriptStart = performance.now();
  // First, before anything that could fail: the summary table is hidden until now (see the style).
  Array.prototype.forEach.call(document.querySelectorAll('.table-wrap'), function (wrap) {
    wrap.classList.add('shown');
  });
  var status = document.getElementById('gpubench-status');
  var errors = [];
  var expected = 0, drawn = 0;
  function show(state) {
    status.setAttribute('data-state', state);
    status.setAttribute('data-charts-expected', String(expected));
    status.setAttribute('data-charts-drawn', String(drawn));
    status.setAttribute('data-errors', String(errors.length));
    status.textContent = 'Charts drawn: ' + drawn + ' of ' + expected + '; script errors: ' +
        errors.length + (errors.length ? ' (' + errors.join(' | ') + ')' : '') +
        (status.getAttribute('data-render-ms') ? '; rendered in ' +
         status.getAttribute('data-render-ms') + ' ms' : '');
  }
  window.addEventListener('error', function (event) {
    errors.push(String(event.message || event.error || 'error'));
    show(status.getAttribute('data-state') || 'error');
  });

  function fmtTime(ns) {
    if (!isFinite(ns)) return '-';
    if (ns === 0) return '0';
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toPrecision(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toPrecision(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toPrecision(3) + ' \u00b5s';
    return ns.toPrecision(3) + ' ns';
  }
  function fmtTimeDigits(ns, digits) {
    if (!isFinite(ns)) return '-';
    var a = Math.abs(ns), units = [[1e9, ' s'], [1e6, ' ms'], [1e3, ' \u00b5s'], [1, ' ns']];
    for (var i = 0; i < units.length; i++) {
      if (a >= units[i][0] || i === units.length - 1) return String(+(ns / units[i][0]).toPrecision(digits)) + units[i][1];
    }
  }
  function fmtBw(b) {
    if (!isFinite(b)) return '-';
    if (b === 0) return '0';
    if (b >= 1e12) return (b / 1e12).toPrecision(3) + ' TB/s';
    if (b >= 1e9) return (b / 1e9).toPrecision(3) + ' GB/s';
    if (b >= 1e6) return (b / 1e6).toPrecision(3) + ' MB/s';
    return (b / 1e3).toPrecision(3) + ' kB/s';
  }
  function fmtArg(v) {
    var units = ['', 'Ki', 'Mi', 'Gi', 'Ti'], i = 0;
    while (i < units.length - 1 && v >= 1024 && v % 1024 === 0) { v /= 1024; i++; }
    return String(v) + units[i];
  }
  function median(values) {
    var v = values.filter(function (x) { return x !== null && isFinite(x); }).sort(function (a, b) { return a - b; });
    if (!v.length) return NaN;
    var m = v.length >> 1;
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  function setupTable() {
    var table = document.getElementById('summary');
    if (!table) return;
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      th.addEventListener('click', function () {
        var ascending = !th.classList.contains('asc');
        Array.prototype.forEach.call(heads, function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(ascending ? 'asc' : 'desc');
        var text = th.getAttribute('data-type') === 'text';
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[column];
          if (!cell) return text ? '' : NaN;
          if (text) return cell.textContent;
          var v = cell.getAttribute('data-v');
          return v === null || v === '' ? NaN : parseFloat(v);
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (!text) {
            if (isNaN(x) && isNaN(y)) return 0;
            if (isNaN(x)) return 1;
            if (isNaN(y)) return -1;
            return ascending ? x - y : y - x;
          }
          return ascending ? x.localeCompare(y) : y.localeCompare(x);
        });
        var fragment = document.createDocumentFragment();
        rows.forEach(function (row) { fragment.appendChild(row); });
        body.appendChild(fragment);
      });
    });
  }

  var BLUE = 'rgba(31, 111, 235, 1)', BLUE_PT = 'rgba(31, 111, 235, 0.45)';
  var GRAY = 'rgba(110, 118, 129, 1)', GRAY_PT = 'rgba(110, 118, 129, 0.45)';
  var RED = 'rgba(207, 34, 46, 0.9)';

  var pending = [];
  function makeChart(canvas, config) { pending.push([canvas, config]); }
  function integerTicks(lo, hi, maxCount) {
    var step = Math.max(1, Math.ceil((hi - lo + 1) / maxCount));
    return function (scale) {
      var ticks = [];
      for (var v = lo; v <= hi; v += step) ticks.push({value: v});
      scale.ticks = ticks;
    };
  }
  function newChart(container, title, wide) {
    var card = document.createElement('div');
    card.className = 'chart' + (wide ? ' wide' : '');
    var h = document.createElement('h3');
    h.textContent = title;
    var box = document.createElement('div');
    box.className = 'box';
    var canvas = document.createElement('canvas');
    box.appendChild(canvas);
    card.appendChild(h);
    card.appendChild(box);
    container.appendChild(card);
    expected++;
    return canvas;
  }

  // Points of every repetition, offset a little on x so that baseline and run sit side by side.
  function points(items, key, x, offset) {
    var out = [];
    items.forEach(function (item) {
      (item[key] || []).forEach(function (y) {
        if (y !== null && isFinite(y) && y > 0) out.push({x: x(item) + offset, y: y, name: item.n});
      });
    });
    return out;
  }
  function medians(items, key, x, offset) {
    var out = [];
    items.forEach(function (item) {
      var m = median(item[key] || []);
      if (isFinite(m)) out.push({x: x(item) + offset, y: m, name: item.n});
    });
    return out.sort(function (a, b) { return a.x - b.x; });
  }

  function datasets(items, key, baseKey, x, withLine) {
    var hasBase = items.some(function (item) { return item[baseKey] && item[baseKey].length; });
    var off = hasBase ? 0.12 : 0;
    var lineOff = withLine ? 0 : off;  // sweeps: medians on the argument; otherwise beside
    var sets = [];
    var lineType = withLine ? 'line' : 'scatter';
    sets.push({type: lineType, label: 'median', data: medians(items, key, x, lineOff), borderColor: BLUE,
               backgroundColor: BLUE, pointRadius: withLine ? 3 : 7, pointStyle: withLine ? 'circle' : 'line',
               borderWidth: 2, showLine: withLine});
    sets.push({type: 'scatter', label: 'repetitions', data: points(items, key, x, off),
               backgroundColor: BLUE_PT, borderColor: BLUE_PT, pointRadius: 2.5});
    if (hasBase) {
      sets.push({type: lineType, label: 'baseline median', data: medians(items, baseKey, x, -lineOff), borderColor: GRAY,
                 backgroundColor: GRAY, pointRadius: withLine ? 3 : 7, pointStyle: withLine ? 'circle' : 'line',
                 borderWidth: 2, borderDash: [5, 4], showLine: withLine});
      sets.push({type: 'scatter', label: 'baseline repetitions', data: points(items, baseKey, x, -off),
                 backgroundColor: GRAY_PT, borderColor: GRAY_PT, pointRadius: 2.5});
    }
    return sets;
  }

  function yScale(sets, format, title, logAllowed, minZero) {
    var ys = [];
    sets.forEach(function (s) { s.data.forEach(function (p) { ys.push(p.y); }); });
    var lo = Math.min.apply(null, ys), hi = Math.max.apply(null, ys);
    var log = logAllowed && lo > 0 && hi / lo > 20;
    var scale = {type: log ? 'logarithmic' : 'linear', title: {display: true, text: title},
                 ticks: {callback: function (v) { return format(v); }, maxTicksLimit: 8}};
    if (log) {
      scale.min = lo / 1.6;
      scale.max = hi * 1.6;
    } else {
      scale.min = minZero ? 0 : lo - (hi - lo) * 0.1;
      scale.max = hi + (hi - lo) * 0.08 + (hi === lo ? Math.abs(hi) * 0.05 + 1e-12 : 0);
    }
    return scale;
  }

  function options(xScale, yScaleOptions, format) {
    return {
      animation: false, responsive: false, maintainAspectRatio: false, parsing: false,
      plugins: {
        legend: {labels: {boxWidth: 12}},
        // Plugins these charts do not use, off so that they cost nothing in each update and draw.
        decimation: false, filler: false, title: false, subtitle: false,
        tooltip: {callbacks: {label: function (c) {
          return c.dataset.label + ': ' + format(c.parsed.y) + (c.raw && c.raw.name ? ' (' + c.raw.name + ')' : '');
        }}}
      },
      scales: {x: xScale, y: yScaleOptions}
    };
  }

  var data = JSON.parse(document.getElementById('gpubench-data').textContent);
  var counter = {id: 'gpubenchDrawn', afterRender: function (chart) {
    if (!chart.$gpubenchDrawn) { chart.$gpubenchDrawn = true; drawn++; }
  }};

  function fmtFlops(v) {
    if (!isFinite(v)) return '-';
    if (v >= 1e12) return (v / 1e12).toPrecision(3) + ' TFLOP/s';
    if (v >= 1e9) return (v / 1e9).toPrecision(3) + ' GFLOP/s';
    return (v / 1e6).toPrecision(3) + ' MFLOP/s';
  }
  // FLOP rate against arithmetic intensity, log-log, under the DRAM roof (bandwidth x intensity)
  // and the FLOP roof (the highest flop_rate_peak of the rows).
  function drawRoofline() {
    var box = document.getElementById('roofline');
    var rows = data.benchmarks.filter(function (b) { return b.ai > 0 && b.fr > 0; });
    if (!box || !rows.length) return;
    var peaks = rows.map(function (b) { return b.fp; }).filter(function (v) { return v > 0; });
    var roof = peaks.length ? Math.max.apply(null, peaks) : 0;
    var ais = rows.map(function (b) { return b.ai; });
    var lo = Math.min.apply(null, ais) / 4, hi = Math.max.apply(null, ais) * 4;
    var sets = [];
    var plain = rows.filter(function (b) { return !(b.tp > 0.5); });
    var tensor = rows.filter(function (b) { return b.tp > 0.5; });
    var point = function (b) { return {x: b.ai, y: b.fr, name: b.n}; };
    sets.push({type: 'scatter', label: 'benchmarks (median)', data: plain.map(point),
               backgroundColor: BLUE, borderColor: BLUE, pointRadius: 5});
    if (tensor.length) {
      sets.push({type: 'scatter', label: 'tensor pipe busy: FLOP undercounted', data: tensor.map(point),
                 backgroundColor: GRAY, borderColor: GRAY, pointRadius: 6, pointStyle: 'triangle'});
    }
    if (data.peak && roof > 0) {
      var ridge = roof / data.peak;
      lo = Math.min(lo, ridge / 4);
      hi = Math.max(hi, ridge * 4);
      sets.push({type: 'line', label: 'DRAM roof ' + fmtBw(data.peak), borderColor: RED,
                 backgroundColor: RED, pointRadius: 0, borderWidth: 1.5, borderDash: [6, 4],
                 data: [{x: lo, y: data.peak * lo}, {x: ridge, y: roof}]});
      sets.push({type: 'line', label: 'FLOP roof ' + fmtFlops(roof), borderColor: RED,
                 backgroundColor: RED, pointRadius: 0, borderWidth: 1.5,
                 data: [{x: ridge, y: roof}, {x: hi, y: roof}]});
    }
    // Whole decades on the intensity axis, so its end ticks do not crowd each other.
    var decadeLo = Math.pow(10, Math.floor(Math.log10(lo))), decadeHi = Math.pow(10, Math.ceil(Math.log10(hi)));
    sets.forEach(function (s) {
      if (s.type !== 'line') return;
      if (s.data[0].x === lo) { s.data[0] = {x: decadeLo, y: data.peak * decadeLo}; }
      if (s.data[1].x === hi) { s.data[1] = {x: decadeHi, y: s.data[1].y}; }
    });
    lo = decadeLo;
    hi = decadeHi;
    var ys = [];
    sets.forEach(function (s) { s.data.forEach(function (p) { ys.push(p.y); }); });
    var xScale = {type: 'logarithmic', min: lo, max: hi,
                  title: {display: true, text: 'arithmetic intensity (FLOP per DRAM byte)'},
                  ticks: {callback: function (v) {
                    var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
                    return [1, 2, 5].indexOf(Math.round(m * 10) / 10) < 0 ? '' : String(+v.toPrecision(2));
                  }, autoSkip: false}};
    var yScaleOptions = {type: 'logarithmic', min: Math.min.apply(null, ys) / 2,
                         max: Math.max.apply(null, ys) * 2, title: {display: true, text: 'FLOP rate'},
                         ticks: {callback: function (v) { return fmtFlops(v); }, maxTicksLimit: 8}};
    makeChart(newChart(box, 'Roofline: FLOP rate against arithmetic intensity', true), {
      type: 'scatter', data: {datasets: sets}, options: options(xScale, yScaleOptions, fmtFlops)});
  }

  // One chart of GPU time (and one of bandwidth) per family that sweeps a numeric argument;
  // returns the benchmarks that are not part of a sweep.
  function drawSweeps(sweeps, families, order) {
    var singles = [];
    var log2 = function (b) { return Math.log2(b.a); };
    order.forEach(function (name) {
      var items = families[name];
      var args = items.filter(function (b) { return b.a !== null && b.a > 0; });
      var distinct = {};
      args.forEach(function (b) { distinct[b.a] = true; });
      if (Object.keys(distinct).length < 2 || args.length !== items.length) {
        singles = singles.concat(items);
        return;
      }
      var xs = args.map(log2);
      var lo = Math.floor(Math.min.apply(null, xs)), hi = Math.ceil(Math.max.apply(null, xs));
      var xScale = {type: 'linear', min: lo - 0.5, max: hi + 0.5,
                    title: {display: true, text: 'argument (log2 axis)'},
                    afterBuildTicks: integerTicks(lo, hi, 12),
                    ticks: {autoSkip: false, callback: function (v) {
                      return Number.isInteger(v) ? fmtArg(Math.pow(2, v)) : '';
                    }}};
      var timeSets = datasets(args, 't', 'bt', log2, true);
      makeChart(newChart(sweeps, name + ': GPU time'), {
        type: 'scatter', data: {datasets: timeSets},
        options: options(xScale, yScale(timeSets, fmtTime, 'GPU time per iteration', true, false), fmtTime)});
      if (args.some(function (b) { return b.b && b.b.length; })) {
        var bwSets = datasets(args, 'b', 'bb', log2, true);
        if (data.peak) {
          bwSets.push({type: 'line', label: 'theoretical peak ' + fmtBw(data.peak), borderColor: RED,
                       backgroundColor: RED, borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5,
                       data: [{x: xScale.min, y: data.peak}, {x: xScale.max, y: data.peak}]});
        }
        makeChart(newChart(sweeps, name + ': DRAM bandwidth'), {
          type: 'scatter', data: {datasets: bwSets},
          options: options(xScale, yScale(bwSets, fmtBw, 'DRAM bandwidth', false, true), fmtBw)});
      }
    });
    if (!order.length || !sweeps.children.length) {
      sweeps.innerHTML = '<p class="muted">No benchmark family sweeps a numeric argument over two or more values.</p>';
    }
    return singles;
  }

  // Benchmarks outside a sweep: one x position each, in charts of 30.
  function drawOthers(others, singles) {
    var CHUNK = 30;
    for (var start = 0; start < singles.length; start += CHUNK) {
      var chunk = singles.slice(start, start + CHUNK);
      var index = function (b) { return chunk.indexOf(b); };
      var labels = chunk.map(function (b) { return b.n.replace(/\/manual_time$/, ''); });
      var xCat = {type: 'linear', min: -0.5, max: chunk.length - 0.5,
                  afterBuildTicks: integerTicks(0, chunk.length - 1, CHUNK),
                  ticks: {autoSkip: false, maxRotation: 50, minRotation: 30, callback: function (v) {
                    return Number.isInteger(v) && labels[v] ? (labels[v].length > 34 ? labels[v].slice(0, 33) + '\u2026' : labels[v]) : '';
                  }}};
      var suffix = singles.length > CHUNK ? ' (' + (start + 1) + '-' + (start + chunk.length) + ' of ' + singles.length + ')' : '';
      var sets = datasets(chunk, 't', 'bt', index, false);
      makeChart(newChart(others, 'GPU time of each repetition' + suffix, true), {
        type: 'scatter', data: {datasets: sets},
        options: options(xCat, yScale(sets, fmtTime, 'GPU time per iteration', true, false), fmtTime)});
      if (chunk.some(function (b) { return b.b && b.b.length; })) {
        var bw = datasets(chunk, 'b', 'bb', index, false);
        if (data.peak) {
          bw.push({type: 'line', label: 'theoretical peak ' + fmtBw(data.peak), borderColor: RED,
                   backgroundColor: RED, borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5,
                   data: [{x: -0.5, y: data.peak}, {x: chunk.length - 0.5, y: data.peak}]});
        }
        makeChart(newChart(others, 'DRAM bandwidth of each repetition' + suffix, true), {
          type: 'scatter', data: {datasets: bw},
          options: options(xCat, yScale(bw, fmtBw, 'DRAM bandwidth', false, true), fmtBw)});
      }
    }
    if (!singles.length) others.parentNode.style.display = 'none';
  }

  // Charts are drawn when their card comes near the viewport (all at once with #all in the URL,
  // before printing, or without IntersectionObserver): a report of 1,000 benchmarks has a few
  // hundred charts, and the first screen should not wait for all of them. Cards are laid out
  // first; each chart gets the fixed size of its box.
  var charts = [], observer = null;
  var allAtOnce = location.hash === '#all' || !('IntersectionObserver' in window);
  function create(i) {
    if (charts[i]) return;
    var canvas = pending[i][0], box = canvas.parentNode;
    canvas.width = box.clientWidth;
    canvas.height = box.clientHeight;
    charts[i] = new Chart(canvas, pending[i][1]);
  }
  function createAll() {
    var sizes = pending.map(function (item) {
      return [item[0].parentNode.clientWidth, item[0].parentNode.clientHeight];
    });
    pending.forEach(function (item, i) {
      if (charts[i]) return;
      item[0].width = sizes[i][0];
      item[0].height = sizes[i][1];
      charts[i] = new Chart(item[0], item[1]);
    });
  }
  // Creates the pending charts from index `from` on: those near the viewport now, the others as
  // they come near. The first screens are drawn now, from layout, so the page's state does not
  // depend on when the browser first delivers IntersectionObserver callbacks (a loaded machine
  // may not before a headless dump).
  function place(from) {
    if (allAtOnce) {
      createAll();
      return;
    }
    var nearEnough = 2 * (window.innerHeight || document.documentElement.clientHeight || 900);
    var tops = pending.map(function (item, i) {
      return i < from ? 0 : item[0].parentNode.parentNode.getBoundingClientRect().top;
    });
    pending.forEach(function (item, i) {
      if (i < from) return;
      if (tops[i] < nearEnough) {
        create(i);
        return;
      }
      var card = item[0].parentNode.parentNode;
      card.setAttribute('data-chart', String(i));
      observer.observe(card);
    });
  }

  // Creates the pending charts: the first screens now, the rest as they come near the viewport.
  // Always true: charts created later report themselves through show().
  function createCharts() {
    window.addEventListener('beforeprint', createAll);
    var resizeTimer = null;
    window.addEventListener('resize', function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(function () {
        var live = charts.filter(function (chart) { return chart; });
        var boxes = live.map(function (chart) {
          return [chart.canvas.parentNode.clientWidth, chart.canvas.parentNode.clientHeight];
        });
        live.forEach(function (chart, i) { chart.resize(boxes[i][0], boxes[i][1]); });
      }, 150);
    });
    if (!allAtOnce) {
      observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting) return;
          observer.unobserve(entry.target);
          create(Number(entry.target.getAttribute('data-chart')));
        });
        show('done');
      }, {rootMargin: '100% 0px'});
    }
    place(0);
    return true;
  }

  // --- History (with 2 or more baseline runs): web/series.js draws it with this script's helpers.
  function drawHistory() {
    if (!window.gpubenchDrawHistory) return;
    window.gpubenchDrawHistory({
      data: data, pending: pending, newChart: newChart, makeChart: makeChart,
      integerTicks: integerTicks, options: options, yScale: yScale, fmtTime: fmtTime,
      fmtTimeDigits: fmtTimeDigits, place: place, show: show, BLUE: BLUE, RED: RED});
  }

  function draw() {
    Chart.register(counter);
    drawHistory();
    drawRoofline();
    var sweeps = document.getElementById('sweeps');
    var others = document.getElementById('others');
    var families = {}, order = [];
    data.benchmarks.forEach(function (b) {
      if (!families[b.f]) { families[b.f] = []; order.push(b.f); }
      families[b.f].push(b);
    });
    drawOthers(others, drawSweeps(sweeps, families, order));
    return createCharts();
  }

  function finish() {
    status.setAttribute('data-script-start-ms', scriptStart.toFixed(0));
    status.setAttribute('data-render-ms', performance.now().toFixed(0));
    // Every chart drawn so far painted something: pixels that are not transparent.
    var blank = 0;
    Array.prototype.forEach.call(document.querySelectorAll('.chart canvas'), function (canvas) {
      if (!canvas.$chartjs) return;
      var w = canvas.width, h = canvas.height, painted = false;
      if (w && h) {
        var pixels = canvas.getContext('2d').getImageData(0, 0, w, h).data;
        for (var i = 3; i < pixels.length; i += 4 * 7) { if (pixels[i] !== 0) { painted = true; break; } }
      }
      if (!painted) blank++;
    });
    status.setAttribute('data-charts-blank', String(blank));
    show('done');
  }

  var complete = true;
  try {
    setupTable();
    if (typeof Chart === 'undefined') throw new Error('Chart.js did not load');
    complete = draw();
  } catch (error) {
    errors.push(String(error && error.stack || error));
  }
  if (complete) finish();
})();
