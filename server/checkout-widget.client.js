// Cobro's checkout widget, served as /v1/widget.js and embedded by stores:
//   <script src="https://{Integration API host}/v1/widget.js"></script>
//   CobroCheckout.mount(element, { publishableKey, paymentId, onPaid, onExpired })
// Plain JavaScript with no dependencies. It renders in a shadow root (the page's CSS cannot reach it),
// in Spanish with Argentine formats, and polls GET /v1/payments/{paymentId} until the charge is final.
(function () {
  "use strict";
  if (window.CobroCheckout) return;

  // The API is where this script came from: {host}/v1/widget.js -> {host}/v1/.
  var script = document.currentScript;
  var apiBase = new URL("./", script && script.src ? script.src : location.href).href;
  var POLL_MS = 2500;

  var STYLE = [
    ":host { all: initial; display: block; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1b1f24; }",
    ".card { box-sizing: border-box; max-width: 420px; width: 100%; padding: 16px; border: 1px solid #d0d7de; border-radius: 12px; background: #fff; color: #1b1f24; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 16px; line-height: 1.4; text-align: left; }",
    "h2 { font-size: 1.05rem; margin: 0 0 12px; }",
    ".amount { font-size: 1.8rem; font-weight: 700; margin: 0 0 12px; }",
    "dl { margin: 0; }",
    "dt { font-size: .8rem; color: #57606a; margin-top: 10px; }",
    "dd { margin: 2px 0 0; overflow-wrap: anywhere; }",
    ".cvu { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }",
    ".cvu input { border: 0; padding: 0; background: transparent; color: inherit; min-width: 0; flex: 1 1 14em; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 1rem; letter-spacing: .02em; }",
    "button { font: inherit; font-size: .9rem; padding: 6px 12px; min-height: 36px; border-radius: 8px; border: 1px solid #0a5fd6; background: #0a66e4; color: #fff; cursor: pointer; }",
    "button:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }",
    ".state { margin: 14px 0 0; padding: 10px; border-radius: 8px; background: #f3f6fa; font-weight: 600; }",
    ".state[data-state='total_payment'] { background: #dcfce7; color: #14532d; }",
    ".state[data-state='overdue'], .state[data-state='partial_overdue'], .state[data-state='canceled'], .state[data-state='error'] { background: #fee2e2; color: #7f1d1d; }",
    ".countdown { font-variant-numeric: tabular-nums; }",
  ].join("\n");

  var pesos = new Intl.NumberFormat("es-AR", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  function money(amount) {
    return "$ " + pesos.format(amount);
  }

  function countdown(seconds) {
    var m = Math.floor(seconds / 60);
    var s = seconds % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  var FINAL = { total_payment: true, overdue: true, partial_overdue: true, canceled: true };

  function stateText(payment) {
    switch (payment.state) {
      case "total_payment":
        return "¡Pago recibido! Gracias.";
      case "partial_payment":
        return "Recibimos un pago parcial: faltan " + money(Math.max(0, payment.amount - payment.paidAmount)) + ".";
      case "overdue":
      case "partial_overdue":
        return "El tiempo para pagar venció.";
      case "canceled":
        return "El pago fue cancelado.";
      default:
        return "Esperando tu transferencia.";
    }
  }

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    for (var name in attributes) node.setAttribute(name, attributes[name]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function adoptStyle(root) {
    // A constructed style sheet works under a page's strict CSP (no inline <style> needed).
    if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
      root.adoptedStyleSheets = [sheet];
    } else {
      root.appendChild(element("style", {}, STYLE));
    }
  }

  function mount(host, options) {
    if (!(host instanceof Element)) throw new TypeError("CobroCheckout.mount: the first argument must be an element");
    if (!options || typeof options.publishableKey !== "string" || typeof options.paymentId !== "string") {
      throw new TypeError("CobroCheckout.mount: publishableKey and paymentId are required");
    }
    var root = host.shadowRoot || host.attachShadow({ mode: "open" });
    while (root.firstChild) root.removeChild(root.firstChild);
    adoptStyle(root);
    var view = renderCard(root);
    copyOnClick(view.copy, view.cvu);
    var following = followPayment(view, options);
    return {
      unmount: function () {
        following.stop();
        while (root.firstChild) root.removeChild(root.firstChild);
      },
    };
  }

  /** The card, added to `root`; returns the elements that show the payment. */
  function renderCard(root) {
    var card = element("section", { class: "card", "aria-label": "Pago por transferencia" });
    card.appendChild(element("h2", {}, "Pagá con una transferencia"));
    var amount = element("p", { class: "amount", "aria-label": "Monto a transferir" }, "…");
    card.appendChild(amount);
    var details = element("dl");
    details.appendChild(element("dt", { id: "cvu-label" }, "CVU"));
    var cvuRow = element("dd", { class: "cvu" });
    var cvu = element("input", { type: "text", readonly: "", "aria-labelledby": "cvu-label", value: "…", size: "22", spellcheck: "false" });
    var copy = element("button", { type: "button", "aria-label": "Copiar el CVU" }, "Copiar");
    cvuRow.appendChild(cvu);
    cvuRow.appendChild(copy);
    details.appendChild(cvuRow);
    details.appendChild(element("dt", {}, "Titular"));
    var holder = element("dd", {}, "…");
    details.appendChild(holder);
    details.appendChild(element("dt", {}, "Vence en"));
    var remaining = element("dd", { class: "countdown", role: "timer", "aria-live": "off" }, "…");
    details.appendChild(remaining);
    card.appendChild(details);
    var state = element("p", { class: "state", role: "status", "aria-live": "polite" }, "Cargando el pago…");
    card.appendChild(state);
    root.appendChild(card);
    return { amount: amount, cvu: cvu, copy: copy, holder: holder, remaining: remaining, state: state };
  }

  function copyOnClick(copy, cvu) {
    copy.addEventListener("click", function () {
      var text = cvu.value;
      var done = function () {
        copy.textContent = "¡Copiado!";
        setTimeout(function () {
          copy.textContent = "Copiar";
        }, 2000);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () {
          cvu.select();
        });
      } else {
        cvu.select(); // the buyer copies it by hand
      }
    });
  }

  /** Shows the payment in `view` and polls it until it is final, telling `onPaid` and `onExpired` once each. */
  function followPayment(view, options) {
    var stopped = false;
    var pollTimer = null;
    var expiresAtMs = null; // by the local clock, from the service's secondsUntilExpiry
    var notified = {};

    function stop() {
      stopped = true;
      clearTimeout(pollTimer);
      clearInterval(tickTimer);
    }

    function tick() {
      if (expiresAtMs === null) return;
      view.remaining.textContent = countdown(Math.max(0, Math.ceil((expiresAtMs - Date.now()) / 1000)));
    }

    function show(payment) {
      view.amount.textContent = money(payment.amount);
      view.cvu.value = payment.CVU || "—";
      var info = payment.bankAccountInfo;
      view.holder.textContent = info.accountHolderName + " · CUIT " + info.accountHolderTaxId + " · " + info.bankName;
      expiresAtMs = Date.now() + payment.secondsUntilExpiry * 1000;
      if (FINAL[payment.state]) {
        view.remaining.textContent = payment.state === "total_payment" ? "Pagado" : "Vencido";
      } else {
        tick();
      }
      view.state.setAttribute("data-state", payment.state);
      if (view.state.textContent !== stateText(payment)) view.state.textContent = stateText(payment);
      view.copy.disabled = FINAL[payment.state] === true;
    }

    function notify(name, payment) {
      if (notified[name]) return;
      notified[name] = true;
      var callback = options[name];
      if (typeof callback === "function") {
        try {
          callback(payment);
        } catch (error) {
          setTimeout(function () {
            throw error;
          });
        }
      }
    }

    function poll() {
      if (stopped) return;
      fetch(apiBase + "payments/" + encodeURIComponent(options.paymentId), {
        headers: { Authorization: "Bearer " + options.publishableKey, Accept: "application/json" },
        credentials: "omit",
        cache: "no-store",
      })
        .then(function (response) {
          if (!response.ok) throw new Error("status " + response.status);
          return response.json();
        })
        .then(function (payment) {
          if (stopped) return;
          show(payment);
          if (payment.state === "total_payment") notify("onPaid", payment);
          if (payment.state === "overdue" || payment.state === "partial_overdue") notify("onExpired", payment);
          if (FINAL[payment.state]) return stop();
          pollTimer = setTimeout(poll, POLL_MS);
        })
        .catch(function () {
          if (stopped) return;
          view.state.setAttribute("data-state", "error");
          view.state.textContent = "No pudimos consultar el pago. Reintentando…";
          pollTimer = setTimeout(poll, POLL_MS);
        });
    }

    var tickTimer = setInterval(tick, 1000);
    poll();
    return { stop: stop };
  }

  window.CobroCheckout = Object.freeze({ mount: mount });
})();
