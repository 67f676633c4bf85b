// Kassa refund claim page: progressive enhancement of the server-rendered page.
// The form works without it; once the refund is claimed this follows it live
// over Server-Sent Events (the page reloads itself when they are not available,
// as it does without JavaScript) and shows its transaction when there is one.
(function () {
  "use strict";
  var root = document.getElementById("refund");
  if (!root) return;
  var d = root.dataset;
  function $(id) { return document.getElementById(id); }

  // The form is sent once: a second click while the first is on its way does nothing.
  var form = $("claim");
  if (form) {
    form.addEventListener("submit", function () {
      var b = form.querySelector("button[type=submit]");
      setTimeout(function () { b.disabled = true; }, 0);
    });
  }
  if (d.open !== "true") return;

  var FINAL = { confirmed: 1, failed: 1, canceled: 1 }, words = {};
  try { words = JSON.parse(d.words); } catch (x) { /* the server's sentences stay */ }
  function render(r) {
    if (r.status !== d.state) {
      d.state = r.status;
      var w = words[r.status] || [r.status, ""];
      $("status").className = "status state-" + r.status;
      $("status-text").textContent = w[0];
      $("status-hint").textContent = w[1];
      $("status-hint").hidden = !w[1];
    }
    var tx = $("tx");
    if (r.tx_hash && tx && tx.textContent !== r.tx_hash) {
      if (d.explorer) {
        var a = document.createElement("a");
        a.id = "tx";
        a.href = d.explorer + r.tx_hash;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        tx.replaceWith(a);
        tx = a;
      }
      tx.textContent = r.tx_hash;
      $("tx-row").hidden = false;
    }
  }
  function reloadLater() { setTimeout(function () { location.reload(); }, 10000); }
  if (!window.EventSource) return reloadLater();
  var es = new EventSource("/refund/" + encodeURIComponent(d.id) + "/events?t=" + encodeURIComponent(d.token)), failures = 0;
  es.onmessage = function (e) {
    failures = 0;
    var r = JSON.parse(e.data);
    render(r);
    if (FINAL[r.status]) es.close();
  };
  // A stream answered with an error status is closed for good at once; one that
  // keeps dropping is given up after three tries. Either way: reloads.
  es.onerror = function () {
    if (FINAL[d.state]) return es.close();
    if (es.readyState === EventSource.CLOSED || ++failures >= 3) { es.close(); reloadLater(); }
  };
})();
