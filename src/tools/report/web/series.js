// gpubench-report's history section (with 2 or more baseline runs): each benchmark's median GPU
// time per run of the series, with the change points of gpubench-compare --changes marked at
// their first run. Embedded before web/report.js, which calls window.gpubenchDrawHistory with its
// chart helpers.
(function () {
  'use strict';
  var BLUE, RED, newChart, makeChart, integerTicks, options, yScale, fmtTime, fmtTimeDigits;
  var GREEN = 'rgba(26, 127, 55, 0.95)', ORANGE = 'rgba(188, 76, 0, 0.95)';
  var MARK_GRAY = 'rgba(110, 118, 129, 0.85)';
  function markColor(mark) {
    if (mark.k === 'gpu') return ORANGE;
    return mark.dir === 'improvement' ? GREEN : RED;
  }
  function fmtPct(p) {
    return p === null || !isFinite(p) ? '' : (p > 0 ? '+' : '') + p.toFixed(2) + '%';
  }
  function markText(mark) {
    return (mark.m === 'real_time' ? '' : mark.m + ' ') + fmtPct(mark.p) + ' ' + mark.k +
        (mark.c ? ' ' + mark.c : '');
  }
  function labelRows(marks, settings) { return Math.min(marks.length + settings.length, 6); }
  // Dashed lines between the run before a change and its first run (a drift: a band to its end;
  // a settings change in gray), and the changes' labels, one a row from the top.
  function markerPlugin(marks, settings) {
    return {id: 'gpubenchMarks', afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx, area = chart.chartArea, xs = chart.scales.x, row = 0;
      var rows = labelRows(marks, settings);
      function line(x, color) {
        var px = xs.getPixelForValue(x - 0.5);
        ctx.strokeStyle = color;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([5, 3]);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
        return px;
      }
      // Above the plot, in the layout's top padding (labelRows): never over the data.
      function label(px, text, color) {
        if (row >= rows) return;
        var top = area.top - 2 - (rows - row) * 14;
        row++;
        var w = ctx.measureText(text).width;
        var left = Math.max(2, px + 4 + w > area.right ? px - 4 - w : px + 4);
        ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
        ctx.fillRect(left - 2, top - 1, w + 4, 14);
        ctx.fillStyle = color;
        ctx.fillText(text, left, top);
      }
      ctx.save();
      ctx.font = '600 11px system-ui, sans-serif';
      ctx.textBaseline = 'top';
      settings.forEach(function (x) { label(line(x, MARK_GRAY), 'settings', MARK_GRAY); });
      marks.forEach(function (mark) {
        var color = markColor(mark);
        if (mark.k === 'drift' && mark.e > mark.x) {
          var from = xs.getPixelForValue(mark.x - 0.5), to = xs.getPixelForValue(mark.e - 0.5);
          ctx.fillStyle = 'rgba(207, 34, 46, 0.07)';
          ctx.fillRect(from, area.top, to - from, area.bottom - area.top);
        }
        label(line(mark.x, color), markText(mark), color);
      });
      ctx.restore();
    }};
  }
  function shortRun(file) {
    var name = file.replace(/\.json$/, '');
    return name.length > 16 ? name.slice(0, 15) + '\u2026' : name;
  }
  // One benchmark's chart, with its changes listed below it (the markers in words).
  function drawSeries(container, item, runs, settings) {
    var last = runs.length - 1, marks = item.marks || [];
    var runName = function (i) { return runs[i].f + (runs[i].c ? ' (commit ' + runs[i].c + ')' : ''); };
    var line = [];
    item.v.forEach(function (y, i) {
      if (y !== null && isFinite(y)) line.push({x: i, y: y, name: runName(i)});
    });
    if (!line.length) return;
    var canvas = newChart(container, item.n, false);
    var card = canvas.parentNode.parentNode;
    card.classList.add('series');
    card.setAttribute('data-benchmark', item.n);
    card.setAttribute('data-changes', String(marks.length));
    if (marks.length) {
      var list = document.createElement('ul');
      list.className = 'marks';
      marks.forEach(function (mark) {
        var li = document.createElement('li');
        li.style.color = markColor(mark);
        li.setAttribute('data-metric', mark.m);
        li.setAttribute('data-kind', mark.k);
        li.setAttribute('data-run', runs[mark.x].f);
        li.setAttribute('data-commit', mark.c);
        li.textContent = mark.m + ' ' + fmtPct(mark.p) + ' ' + mark.k +
            (mark.g ? ' (' + mark.g + ')' : mark.dir !== 'unknown' ? ' (' + mark.dir + ')' : '') +
            ' at ' + runs[mark.x].f + (mark.c ? ', commit ' + mark.c : '');
        list.appendChild(li);
      });
      card.appendChild(list);
    }
    var sets = [{type: 'line', label: 'median per run', data: line, borderColor: BLUE,
                 backgroundColor: BLUE, pointRadius: 2.5, borderWidth: 1.5, showLine: true}];
    var firsts = marks.filter(function (mark) {
      return mark.m === 'real_time' && item.v[mark.x] !== null;
    }).map(function (mark) { return {x: mark.x, y: item.v[mark.x], name: runName(mark.x)}; });
    if (firsts.length) {
      sets.push({type: 'scatter', label: 'first run after a change', data: firsts, pointStyle: 'triangle',
                 pointRadius: 7, backgroundColor: RED, borderColor: RED});
    }
    if (item.v[last] !== null) {
      sets.push({type: 'scatter', label: 'this run', data: [{x: last, y: item.v[last], name: runName(last)}],
                 pointStyle: 'rectRot', pointRadius: 6, backgroundColor: 'rgba(255, 255, 255, 0.9)',
                 borderColor: BLUE, borderWidth: 2});
    }
    var xScale = {type: 'linear', min: -0.5, max: last + 0.5, title: {display: false},
                  afterBuildTicks: integerTicks(0, last, 16),
                  ticks: {autoSkip: false, maxRotation: 60, minRotation: 40, font: {size: 10},
                          callback: function (v) {
                            return Number.isInteger(v) && runs[v] ? shortRun(runs[v].f) : '';
                          }}};
    var config = {type: 'scatter', data: {datasets: sets},
                  options: options(xScale, yScale(sets, fmtTime, 'GPU time (median)', false, false), fmtTime),
                  plugins: [markerPlugin(marks, settings)]};
    config.options.plugins.legend.labels.font = {size: 11};
    config.options.plugins.legend.position = 'bottom';
    config.options.layout = {padding: {top: 6 + labelRows(marks, settings) * 14}};
    // A series moves by fractions of a percent: ticks with the digits that tell them apart.
    var ys = line.map(function (p) { return p.y; });
    var top = Math.max.apply(null, ys), spread = top - Math.min.apply(null, ys);
    var digits = Math.min(7, Math.max(3, Math.ceil(Math.log10(Math.abs(top) / (spread || Math.abs(top) * 1e-3))) + 2));
    config.options.scales.y.ticks.callback = function (v) { return fmtTimeDigits(v, digits); };
    makeChart(canvas, config);
  }
  window.gpubenchDrawHistory = function (api) {
    var data = api.data, pending = api.pending, place = api.place, show = api.show;
    BLUE = api.BLUE; RED = api.RED; newChart = api.newChart; makeChart = api.makeChart;
    integerTicks = api.integerTicks; options = api.options; yScale = api.yScale;
    fmtTime = api.fmtTime; fmtTimeDigits = api.fmtTimeDigits;
    var history = data.history, box = document.getElementById('series-charts');
    if (!history || !box) return;
    history.changed.forEach(function (item) { drawSeries(box, item, history.runs, history.settings); });
    var more = document.getElementById('series-more');
    var moreBox = document.getElementById('series-more-charts');
    if (!more || !moreBox) return;
    if (location.hash === '#all') more.open = true;
    var built = false;
    function build() {
      built = true;
      history.collapsed.forEach(function (item) { drawSeries(moreBox, item, history.runs, history.settings); });
    }
    if (more.open) {
      build();
      return;
    }
    // Collapsed (a long suite): its charts are made when it is first opened.
    more.addEventListener('toggle', function () {
      if (!more.open || built) return;
      var from = pending.length;
      build();
      place(from);
      show('done');
    });
  };

})();
