// The y axes of every uPlot chart on Sluice's pages (the console's panels, the metrics server's /graph): an axis as
// wide as its widest tick label. uPlot's default is a fixed 50 px, which cut labels of five digits and more at the
// left edge (a rate of 45,000/s read "5,000"). Pages load it before their own script and call SluiceAxis.y(...).
(function () {
  "use strict";

  // uPlot calls size() again while its layout converges; the label widths are measured on the chart's own canvas
  // with the axis' own font, so what is drawn is what fits.
  function size(u, values, axisIdx, cycleNum) {
    const axis = u.axes[axisIdx];
    if (cycleNum > 1 && axis._size) return axis._size;
    let width = (axis.ticks && axis.ticks.show !== false ? axis.ticks.size : 0) + (axis.gap || 0);
    const longest = (values || []).reduce((a, v) => (v != null && String(v).length > a.length ? String(v) : a), "");
    if (longest === "") return Math.max(width + 30, 50);
    u.ctx.font = axis.font[0];
    width += u.ctx.measureText(longest).width / (window.devicePixelRatio || 1);
    return Math.ceil(width) + 4;
  }

  // A y axis with that width; extra options (label, values, …) are kept.
  function y(extra) {
    return Object.assign({ size }, extra || {});
  }

  window.SluiceAxis = { size, y };
})();
