// Kassa payment page: progressive enhancement of the server-rendered page. It
// counts down, copies, submits through the payor API (session headers only) and
// follows the invoice live over Server-Sent Events, polling payment-status when
// they are not available.
(function () {
  "use strict";
  var root = document.getElementById("pay");
  if (!root) return;
  var d = root.dataset;
  var headers = { "x-session-token": d.session, "x-signature": d.signature, "Content-Type": "application/json" };
  var state = d.state;

  function api(method, path, body) {
    return fetch("/api/v1/payments/" + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw j; return j; }); });
  }
  function cents(millis) { return "$" + (Math.round(millis / 10) / 100).toFixed(2); }
  function $(id) { return document.getElementById(id); }

  // Countdowns: every [data-deadline] <time> shows what is left.
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-deadline]").forEach(function (t) {
      var left = Math.max(0, Math.floor((Date.parse(t.getAttribute("datetime")) - now) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, s = left % 60;
      t.textContent = left === 0 ? d.tExpiredShort : (h ? h + ":" + (m < 10 ? "0" : "") + m : m) + ":" + (s < 10 ? "0" : "") + s;
    });
  }
  tick();
  setInterval(tick, 1000);

  // Copy buttons.
  document.addEventListener("click", function (e) {
    var b = e.target.closest("button[data-copy]");
    if (!b || !navigator.clipboard) return;
    navigator.clipboard.writeText(b.dataset.copy).then(function () {
      var old = b.textContent;
      b.textContent = d.tCopied;
      setTimeout(function () { b.textContent = old; }, 1500);
    });
  });

  // Forms go through the payor API; the page then shows the server's new view.
  function showError(form, err) {
    var p = form.querySelector(".error") || form.appendChild(document.createElement("p"));
    p.className = "error";
    p.setAttribute("role", "alert");
    p.textContent = (err && err.error && err.error.message) || "Error";
  }
  function enhance(id, send) {
    var form = $(id);
    if (!form) return;
    form.addEventListener("submit", function (e) {
      if (!form.checkValidity()) return;
      e.preventDefault();
      send(form).then(function () { location.reload(); }, function (err) { showError(form, err); });
    });
  }
  enhance("questions", function (form) {
    var responses = [];
    form.querySelectorAll("input[name^='q.']").forEach(function (i) {
      if (i.value.trim() !== "") responses.push({ question_id: i.name.slice(2), response: i.value.trim() });
    });
    return api("POST", "submit-form", { responses: responses });
  });
  enhance("tokens", function (form) {
    var c = form.querySelector("input[name=token_id]:checked");
    return api("POST", "payment-address", { token_id: Number(c.value) });
  });
  enhance("email-form", function (form) { return api("POST", "customer-email", { email: form.email.value.trim() }); });

  // Live status.
  var shown = "", es = null;
  function render(st) {
    var key = JSON.stringify(st);
    if (key === shown) return;
    shown = key;
    var next = st.status === "paid" ? "paid" : st.status === "expired" ? "expired" : st.status === "canceled" ? "canceled"
      : st.status === "underpaid" ? "partial" : st.amount_pending > 0 ? "detected" : "waiting";
    var box = $("status");
    box.className = "status state-" + next;
    $("status-text").textContent = d["t" + next.charAt(0).toUpperCase() + next.slice(1)];
    $("paid").textContent = cents(st.amount_paid);
    $("remaining").textContent = cents(st.amount_remaining);
    var list = $("payments");
    list.textContent = "";
    (st.payments || []).forEach(function (p) {
      var li = document.createElement("li"), tx = document.createElement("span");
      tx.className = "tx";
      tx.title = p.tx_hash;
      tx.textContent = p.tx_hash.slice(0, 10) + "…" + p.tx_hash.slice(-6);
      li.appendChild(tx);
      li.appendChild(document.createTextNode(" " + (d["tReceipt" + p.status.charAt(0).toUpperCase() + p.status.slice(1).replace("_", "")] || p.status) +
        (p.status === "pending" ? " · " + p.confirmations + " " + d.tConfirmations : "")));
      list.appendChild(li);
    });
    if (next === "partial") {
      var change = document.querySelector("details.change");
      if (change) change.hidden = true;
    }
    if (next === "partial" && state !== "partial" && d.token) {
      // What is still owed changed: a fresh quote in the same token.
      api("POST", "payment-address", { token_id: Number(d.token) }).then(function (a) {
        $("amount-token").textContent = a.amount_token + " " + a.token_symbol;
        document.querySelector("#address button[data-copy]").dataset.copy = a.amount_token;
        $("wallet").href = a.payment_uri;
        $("quote").setAttribute("datetime", a.expires_at);
        $("qr").src = $("qr").src.replace(/&v=\d+$/, "") + "&v=" + Date.now();
      });
    }
    if (next === "paid" || next === "expired" || next === "canceled") {
      if (es) es.close();
      var open = $("open");
      if (open) open.hidden = true;
    }
    if (next === "paid") {
      $("receipt").hidden = false;
      $("receipt-paid").textContent = cents(st.amount_paid) + " USD";
      if (d.return && state !== "paid") {
        $("redirecting").hidden = false;
        setTimeout(function () { location.href = d.return; }, 2500);
      }
    }
    state = next;
  }
  function poll() {
    api("GET", "payment-status").then(render, function () {});
    if (state !== "paid" && state !== "expired" && state !== "canceled") setTimeout(poll, 5000);
  }
  if (state === "paid" || state === "expired" || state === "canceled") return;
  if (window.EventSource) {
    es = new EventSource("/pay/" + d.invoice + "/events?session=" + encodeURIComponent(d.session) + "&signature=" + encodeURIComponent(d.signature));
    var failures = 0;
    es.onmessage = function (e) { failures = 0; render(JSON.parse(e.data)); };
    es.onerror = function () { if (++failures >= 3) { es.close(); poll(); } };
  } else {
    poll();
  }
})();
