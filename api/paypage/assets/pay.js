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
  var FINAL = { paid: 1, expired: 1, canceled: 1 };
  var state = d.state, remaining = Number(d.remaining), errs = {};
  try { errs = JSON.parse(d.errors); } catch (x) { /* the API's own messages */ }
  var receipts = {};
  try { receipts = JSON.parse(d.receipts); } catch (x) { /* the statuses themselves */ }

  // An API call; a refusal rejects with the API's error and the HTTP status.
  function api(method, path, body) {
    return fetch("/api/v1/payments/" + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
      .then(function (r) {
        return r.json().then(function (j) { if (!r.ok) throw { error: j.error, status: r.status }; return j; },
          function (x) { throw r.ok ? x : { status: r.status }; });
      });
  }
  // usd shows an amount of usd_millis as kassa.Millis.USD does (the one rule):
  // cents when whole, "$12.50", else the exact thousandths, "$12.505"; never rounded.
  function usd(millis) {
    var neg = millis < 0, m = Math.abs(millis), frac = String(1000 + m % 1000).slice(1);
    return (neg ? "-$" : "$") + Math.floor(m / 1000) + "." + (m % 10 === 0 ? frac.slice(0, 2) : frac);
  }
  function $(id) { return document.getElementById(id); }
  function show(el, on) { if (el) el.hidden = !on; }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  // Screen readers hear what goes into the polite live region.
  function announce(text) {
    var a = $("announce");
    a.textContent = "";
    setTimeout(function () { a.textContent = text; }, 100);
  }

  // Countdowns: every [data-deadline] <time> shows what is left by the server's
  // clock (its now when it made the page, kept as an offset from ours, so a
  // browser clock that is wrong does not matter); a price lock that runs out is
  // quoted again.
  var offset = Date.parse(d.now) - Date.now() || 0;
  function now() { return Date.now() + offset; }
  function left(sec) {
    var days = Math.floor(sec / 86400), h = Math.floor(sec / 3600) % 24, m = Math.floor(sec / 60) % 60;
    var hms = (days || h ? h + ":" + pad(m) : m) + ":" + pad(sec % 60);
    return days ? days + " " + (days === 1 ? d.tDay : d.tDays) + " " + hms : hms;
  }
  var retryQuote = 0;
  function tick() {
    var at = now();
    document.querySelectorAll("time[data-deadline]").forEach(function (t) {
      var sec = Math.max(0, Math.floor((Date.parse(t.getAttribute("datetime")) - at) / 1000));
      t.textContent = sec === 0 ? d.tExpiredShort : left(sec);
      if (sec === 0 && t.id === "quote" && at >= retryQuote) {
        retryQuote = at + 15000; // the server may still hold the quote a moment: ask again later, not in a loop
        requote();
      }
    });
  }
  tick();
  var timer = setInterval(tick, 1000);

  // The quote: asked again when it runs out and whenever what is owed changes.
  var quoting = false, again = false;
  function requote() {
    var box = $("address");
    if (!d.token || !box || box.hidden || FINAL[state] || ended) return; // nothing is asked while a payment is confirmed
    if (quoting) { again = true; return; }
    quoting = true;
    api("POST", "payment-address", { token_id: Number(d.token) }).then(applyQuote, gone).then(function () {
      quoting = false;
      if (again) { again = false; requote(); }
    });
  }
  function applyQuote(a) {
    $("amount-token").textContent = a.amount_token + " " + a.token_symbol;
    $("copy-amount").dataset.copy = a.amount_token;
    var wallet = /^ethereum:/.test(a.payment_uri);
    if (wallet) $("wallet").href = a.payment_uri;
    show($("wallet-row"), wallet);
    $("quote").setAttribute("datetime", a.expires_at);
    $("quote-at").textContent = a.expires_at.slice(11, 16);
    $("qr").src = d.qr + "&quote=" + encodeURIComponent(a.expires_at);
    tick();
  }

  // Copy buttons; "Copied" is also said to screen readers.
  function copy(text) {
    var fallback = function () {
      var t = document.createElement("textarea");
      t.value = text;
      t.className = "sr";
      document.body.appendChild(t);
      t.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (x) { /* not allowed */ }
      document.body.removeChild(t);
      if (!ok) throw new Error("copy");
    };
    return navigator.clipboard ? navigator.clipboard.writeText(text).catch(fallback) : Promise.resolve().then(fallback);
  }
  // Copy buttons need the script: they are hidden in the HTML and shown here.
  document.querySelectorAll("button[data-copy]").forEach(function (b) { b.hidden = false; });
  document.addEventListener("click", function (e) {
    var b = e.target.closest("button[data-copy]");
    if (!b) return;
    copy(b.dataset.copy).then(function () {
      var old = b.textContent;
      b.textContent = d.tCopied;
      announce(d.tCopied + ": " + b.dataset.copy);
      setTimeout(function () { b.textContent = old; }, 1500);
    }, function () {});
  });

  // Forms go through the payor API; the page then shows the server's new view,
  // with the focus on the next step's heading.
  function showError(form, err) {
    var p = form.querySelector(".error") || form.appendChild(document.createElement("p"));
    var e = err && err.error;
    p.className = "error";
    p.setAttribute("role", "alert");
    // The page's words for the code; else the API's (English) message on the
    // English page and a general sentence in other languages.
    p.textContent = (e && (errs[e.code] || (document.documentElement.lang === "en" && e.message))) || errs._;
  }
  function enhance(id, done, send) {
    var form = $(id);
    if (!form) return;
    // "Skip" is told by its click, not by SubmitEvent.submitter, which not every
    // browser has; Enter in a field clicks the first button, "Continue".
    var skipped = false, skipButton = form.querySelector("button[name=skip]");
    if (skipButton) skipButton.addEventListener("click", function () { skipped = true; });
    form.addEventListener("submit", function (e) {
      var skip = skipped;
      skipped = false;
      if (!skip && !form.checkValidity()) return;
      e.preventDefault();
      send(form, skip).then(function () { location.replace(d.page + "&done=" + done); }, function (err) { showError(form, err); });
    });
  }
  enhance("questions", "answers", function (form, skip) {
    var responses = [];
    form.querySelectorAll("input[name^='q.']").forEach(function (i) {
      if (!skip && i.value.trim() !== "") responses.push({ question_id: i.name.slice(2), response: i.value.trim() });
    });
    return api("POST", "submit-form", { responses: responses });
  });
  enhance("tokens", "token", function (form) {
    var c = form.querySelector("input[name=token_id]:checked");
    return api("POST", "payment-address", { token_id: Number(c.value) });
  });
  enhance("email-form", "email", function (form) { return api("POST", "customer-email", { email: form.email.value.trim() }); });
  var done = /[?&]done=(\w+)/.exec(location.search);
  if (done) {
    history.replaceState(null, "", location.href.replace(/&done=\w+/, ""));
    var next = done[1] === "email" ? document.querySelector(".notice") : document.querySelector("#open h2");
    if (next) next.focus();
  }

  // Live status.
  var shown = "", es = null, polling = false, ended = false;
  // A session the API no longer knows (404) or a signature it refuses (401) will
  // not come back: the status cannot be followed, nothing more is asked, and the
  // page says why. Other failures (the network, the server) are tried again.
  function gone(err) {
    if (!err || (err.status !== 401 && err.status !== 404)) return;
    ended = true;
    if (es) es.close();
    clearInterval(timer);
    $("status").className = "status state-unavailable";
    $("status-text").textContent = d.tUnavailable;
    var hint = $("detected-hint");
    hint.textContent = err.status === 401 ? d.tRefused : d.tEnded;
    show(hint, true);
    show($("open"), false);
    show($("time-left"), false);
  }
  // receiptKey is the page's rule (paypage.receiptKey) for what a payment is
  // called: its resolution, else why it was set aside, else its status.
  var REVIEWED = { late: 1, wrong_token: 1, final_invoice: 1, reorged: 1 };
  function receiptKey(p) {
    if (p.resolution) return p.resolution;
    if (p.status === "pending") return "pending";
    if (p.status !== "manual_retry") return "confirmed";
    return REVIEWED[p.attention_reason] ? p.attention_reason : "review";
  }
  function progress(p) { return p.confirmations + "/" + p.confirmations_required + " " + d.tConfirmations; }
  function render(st) {
    var key = JSON.stringify(st);
    if (ended || key === shown) return;
    shown = key;
    var next = FINAL[st.status] ? st.status : st.amount_pending > 0 ? "detected" : st.status === "underpaid" ? "partial" : "waiting";
    var pending = (st.payments || []).filter(function (p) { return p.status === "pending"; })[0];
    $("status").className = "status state-" + next;
    $("status-text").textContent = d["t" + next.charAt(0).toUpperCase() + next.slice(1)] +
      (next === "detected" && pending ? ": " + progress(pending) : "");
    show($("detected-hint"), next === "detected");
    $("paid").textContent = usd(st.amount_paid);
    $("remaining").textContent = usd(st.amount_remaining);
    var list = $("payments");
    list.textContent = "";
    (st.payments || []).forEach(function (p) {
      var li = document.createElement("li"), tx = document.createElement("span");
      tx.className = "tx";
      tx.title = p.tx_hash;
      tx.textContent = p.tx_hash.slice(0, 10) + "…" + p.tx_hash.slice(-6);
      li.appendChild(tx);
      li.appendChild(document.createTextNode(" " + (receipts[receiptKey(p)] || p.status) +
        (p.status === "pending" ? " · " + progress(p) : "")));
      list.appendChild(li);
    });
    // While a payment is being confirmed nothing more is asked; once it counts,
    // only the same token may pay the rest.
    show($("address"), next === "waiting" || next === "partial");
    show($("tokens"), next === "waiting" || next === "partial");
    show(document.querySelector("details.change"), next === "waiting");
    if (!FINAL[next] && st.amount_remaining !== remaining) {
      remaining = st.amount_remaining;
      // What is still owed changed: a fresh quote in the same token (or, with no
      // token chosen on this page yet, the server's page for what is left).
      if ($("address")) requote(); else if ($("tokens")) location.reload();
    }
    if (FINAL[next]) {
      if (es) es.close();
      clearInterval(timer);
      show($("open"), false);
      show($("time-left"), false);
    }
    if (next === "paid") {
      show($("receipt"), true);
      $("receipt-paid").textContent = usd(st.amount_paid) + " USD";
      if (st.paid_at) $("receipt-date").textContent = st.paid_at.slice(0, 10) + " " + st.paid_at.slice(11, 16) + " UTC";
      if (d.return && state !== "paid") {
        show($("redirecting"), true);
        setTimeout(function () { location.href = d.return; }, 2500);
      }
    }
    state = next;
  }
  function poll() {
    if (polling) return;
    polling = true;
    (function again() {
      api("GET", "payment-status").then(render, gone).then(function () {
        if (!FINAL[state] && !ended) setTimeout(again, 5000);
      });
    })();
  }
  if (FINAL[state]) return;
  if (window.EventSource) {
    es = new EventSource("/pay/" + d.invoice + "/events?session=" + encodeURIComponent(d.session) + "&signature=" + encodeURIComponent(d.signature));
    var failures = 0;
    es.onmessage = function (e) { failures = 0; render(JSON.parse(e.data)); };
    // A stream answered with an error status is closed for good at once; one
    // that keeps dropping is given up after three tries. Either way: polling.
    es.onerror = function () {
      if (FINAL[state]) return es.close();
      if (es.readyState === EventSource.CLOSED || ++failures >= 3) { es.close(); poll(); }
    };
  } else {
    poll();
  }
})();
