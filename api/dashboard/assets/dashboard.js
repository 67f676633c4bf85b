// Kassa dashboard: small enhancements. Every page works without this script.
(function () {
  "use strict";
  // Times in the reader's own time zone (the page prints UTC).
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (!isNaN(d)) {
      el.textContent = d.toLocaleString();
      el.title = el.getAttribute("datetime");
    }
  });
  // Copy buttons: data-copy names the field to copy.
  document.querySelectorAll("[data-copy]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var field = document.querySelector(btn.getAttribute("data-copy"));
      if (!field || !navigator.clipboard) { return; }
      navigator.clipboard.writeText(field.value).then(function () { btn.textContent = "Copied"; });
    });
  });
  // Confirmations before forms that cannot be undone.
  function confirmFirst(form) {
    form.addEventListener("submit", function (e) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { e.preventDefault(); }
    });
  }
  document.querySelectorAll("form[data-confirm]").forEach(confirmFirst);
  // Live invoice page: the server sends the changing parts as JSON (Server-Sent
  // Events) and they are written with textContent and new elements only.
  var live = document.querySelector("[data-live-src]");
  if (live && window.EventSource) {
    var source = new EventSource(live.getAttribute("data-live-src"));
    var lastStatus = null;
    source.onmessage = function (msg) {
      var v;
      try { v = JSON.parse(msg.data); } catch (e) { return; }
      updateInvoice(v);
      if (lastStatus !== null && lastStatus !== v.status) {
        setText("announce", "The invoice is now: " + v.status_label + ".");
      }
      lastStatus = v.status;
    };
  }
  function all(name) { return document.querySelectorAll('[data-live="' + name + '"]'); }
  function setText(name, text) { all(name).forEach(function (el) { el.textContent = text; }); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = text; }
    if (cls) { e.className = cls; }
    return e;
  }
  function txCell(hash, url) {
    var e = el(url ? "a" : "code", hash, "ident hash");
    e.title = hash;
    if (url) {
      e.href = url;
      e.rel = "noreferrer";
    }
    return e;
  }
  // badge is a status in words (code, label, title), as the server renders it.
  function badge(s) {
    var b = el("span", s.label, "badge " + s.code);
    b.title = s.title;
    return b;
  }
  function cell(label, child) {
    var td = el("td");
    td.setAttribute("data-label", label);
    if (typeof child === "string") { td.textContent = child; } else { td.appendChild(child); }
    return td;
  }
  function localTime(iso) {
    var t = el("time", iso);
    t.setAttribute("datetime", iso);
    var d = new Date(iso);
    if (!isNaN(d)) { t.textContent = d.toLocaleString(); t.title = iso; }
    return t;
  }
  // resolveForms are a set-aside payment's Accept and Dismiss, as the server renders them.
  function resolveForms(invoice, p) {
    var div = el("div", null, "actions");
    [["accept", "Accept", "", "Accept " + p.amount + "? It is credited to this invoice at its value when it arrived and settles to you like any payment."],
     ["refund"],
     ["dismiss", "Dismiss", "", "Dismiss " + p.amount + "? You keep the money without crediting the invoice; it settles to you."]].forEach(function (a) {
      if (a[0] === "refund") {
        if (p.can_refund) {
          var link = el("a", "Refund", "button");
          link.href = "/dashboard/invoices/" + encodeURIComponent(invoice) + "/refund?payment=" + encodeURIComponent(p.id);
          div.appendChild(link);
        }
        return;
      }
      if (!p.can_resolve) { return; }
      var form = el("form");
      form.method = "post";
      form.action = "/dashboard/invoices/" + encodeURIComponent(invoice) + "/payments/" + encodeURIComponent(p.id) + "/" + a[0];
      form.setAttribute("data-confirm", a[3]);
      var b = el("button", a[1], a[2]);
      b.type = "submit";
      form.appendChild(b);
      confirmFirst(form);
      div.appendChild(form);
    });
    return div;
  }
  // refundMain is a refund as refunds.tmpl draws its "refund-main" part.
  function refundMain(f) {
    var div = el("div", null, "refund-main");
    var head = el("p", null, "refund-head");
    var a = el("a", f.amount);
    a.href = f.page;
    head.appendChild(a);
    head.appendChild(document.createTextNode(" "));
    head.appendChild(badge(f.status));
    div.appendChild(head);
    var to = el("p", null, "refund-to");
    to.appendChild(el("small", "To"));
    to.appendChild(document.createTextNode(" "));
    if (f.to) {
      var c = el("code", f.to, "ident");
      c.title = f.to;
      to.appendChild(c);
    } else {
      to.appendChild(document.createTextNode("the payor, through a claim link"));
    }
    div.appendChild(to);
    if (f.tx_hash) {
      var tx = el("p", null, "refund-tx");
      tx.appendChild(el("small", "Transaction"));
      tx.appendChild(document.createTextNode(" "));
      tx.appendChild(txCell(f.tx_hash, f.tx_url));
      div.appendChild(tx);
    }
    if (f.failure) { div.appendChild(el("p", f.failure, "refund-failure status-note")); }
    var created = el("p", null, "refund-created");
    var small = el("small", "Created ");
    small.appendChild(localTime(f.created));
    created.appendChild(small);
    div.appendChild(created);
    return div;
  }
  // updateRefunds redraws each refund's main part in place, adds new ones, and
  // keeps what else an item holds (its "pay it from your own wallet" block).
  function updateRefunds(list, refunds) {
    var items = refunds.map(function (f) {
      var li = list.querySelector('li[data-refund="' + f.id + '"]');
      if (!li) {
        li = el("li", null, "refund");
        li.setAttribute("data-refund", f.id);
        li.appendChild(el("div"));
      }
      var old = li.querySelector(".refund-main") || li.firstChild;
      li.replaceChild(refundMain(f), old);
      return li;
    });
    items.forEach(function (li) { list.appendChild(li); });
    list.hidden = refunds.length === 0;
  }
  function updateInvoice(v) {
    all("status").forEach(function (b) { b.textContent = v.status_label; b.title = v.status_title; b.className = "badge " + v.status; });
    setText("status-note", v.status_title);
    setText("paid", v.paid);
    setText("pending", v.pending);
    all("cancel").forEach(function (f) { f.hidden = !v.can_cancel; });
    all("payments").forEach(function (body) {
      var rows = v.payments.map(function (p) {
        var tr = el("tr");
        tr.appendChild(cell("Amount", p.amount));
        tr.appendChild(cell("Status", badge(p.status)));
        tr.appendChild(cell("Network", p.network));
        tr.appendChild(cell("Transaction", txCell(p.tx_hash, p.tx_url)));
        tr.appendChild(cell("Confirmations", p.confirmations));
        var se = cell("Settlement", badge(p.settlement));
        if (p.settlement_tx) {
          se.appendChild(document.createTextNode(" "));
          se.appendChild(txCell(p.settlement_tx, p.settlement_url));
        }
        tr.appendChild(se);
        var act = cell("Actions", "");
        if (p.can_resolve || p.can_refund) { act.appendChild(resolveForms(body.getAttribute("data-invoice"), p)); }
        tr.appendChild(act);
        return tr;
      });
      body.replaceChildren.apply(body, rows);
    });
    all("payments-table").forEach(function (t) { t.hidden = v.payments.length === 0; });
    setText("refunded", v.refunded);
    all("refund").forEach(function (a) { a.hidden = !v.can_refund; });
    all("refunds").forEach(function (list) { updateRefunds(list, v.refunds); });
    all("refunds-empty").forEach(function (p) { p.hidden = v.refunds.length > 0; });
    all("payments-empty").forEach(function (p) { p.hidden = v.payments.length > 0; });
    all("timeline").forEach(function (ol) {
      ol.replaceChildren.apply(ol, v.timeline.map(function (row) {
        var li = el("li");
        li.appendChild(localTime(row.at));
        li.appendChild(document.createTextNode(" " + row.text));
        return li;
      }));
    });
  }
})();
