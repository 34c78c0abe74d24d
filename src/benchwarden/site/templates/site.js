// benchwarden site: draws each figure of the page from the page's embedded JSON (#benchwarden-data) with plotly.js.
// No network, no eval: the data is parsed as JSON, text in it was escaped for plotly when the site was built.
(function () {
  "use strict";
  var element = document.getElementById("benchwarden-data");
  if (!element || typeof Plotly === "undefined") { return; }
  var data = JSON.parse(element.textContent);
  var config = {displaylogo: false, responsive: true, scrollZoom: false,
                modeBarButtonsToRemove: ["sendDataToCloud", "toImage"]};
  data.figures.forEach(function (figure) {
    var target = document.getElementById(figure.id);
    if (target) { Plotly.newPlot(target, figure.data, figure.layout, config); }
  });
}());
