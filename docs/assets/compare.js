// Sortable comparison tables (render/compare.py writes them). Each column heading becomes a
// button, so a keyboard reaches it with Tab and sorts with Enter or Space; the column's
// aria-sort says the order. Cells sort by their data-sort key; unknown cells (an empty key)
// stay last in both directions. Without this script the table is a plain table.
(function () {
  "use strict";

  function sortBy(table, column, heading) {
    var ascending = heading.getAttribute("aria-sort") !== "ascending";
    var headings = table.tHead.rows[0].cells;
    for (var i = 0; i < headings.length; i++) headings[i].removeAttribute("aria-sort");
    heading.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var numeric = heading.getAttribute("data-sort-type") === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[column].getAttribute("data-sort") || "";
      var y = b.cells[column].getAttribute("data-sort") || "";
      if (!x || !y) return (x ? 0 : 1) - (y ? 0 : 1);
      var order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function setUp() {
    var tables = document.querySelectorAll("table.compare-table");
    Array.prototype.forEach.call(tables, function (table) {
      if (table.getAttribute("data-sortable")) return;
      table.setAttribute("data-sortable", "yes");
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (heading, column) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "compare-sort";
        while (heading.firstChild) button.appendChild(heading.firstChild);
        heading.appendChild(button);
        button.addEventListener("click", function () { sortBy(table, column, heading); });
      });
    });
  }

  // Material's document$ announces every page, instant navigation included.
  if (typeof document$ !== "undefined") document$.subscribe(setUp);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
