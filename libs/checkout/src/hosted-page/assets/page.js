/*
 * Hosted checkout page: live state, countdown, copy buttons and the redirect after payment.
 * Plain ES2019 without a build step. The HTML the server sends is complete without this script;
 * the script keeps it current. Merchant strings only ever go through textContent, never parsed as markup.
 *
 * The pure functions at the top repeat page-state.ts, locale.ts and render-page.ts (the server's
 * side); page-script.spec.ts loads this file in Node and checks that both sides agree.
 */
/* global document, window, EventSource */
'use strict';

(function () {
  function compareDecimals(a, b) {
    var left = String(a).split('.');
    var right = String(b).split('.');
    var ai = left[0].replace(/^0+/, '');
    var bi = right[0].replace(/^0+/, '');
    if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
    var af = left[1] || '';
    var bf = right[1] || '';
    var width = Math.max(af.length, bf.length);
    var x = ai + af.padEnd(width, '0');
    var y = bi + bf.padEnd(width, '0');
    return x === y ? 0 : x < y ? -1 : 1;
  }

  function isZero(value) {
    return compareDecimals(value, '0') === 0;
  }

  function pageStateOf(view, nowMs) {
    var status = view.status;
    if (status === 'Pending' && nowMs >= Date.parse(view.expires_at)) {
      status = isZero(view.amount_received) ? 'Expired' : 'Underpaid';
    }
    var seen = !isZero(view.amount_seen);
    var confirming = compareDecimals(view.amount_seen, view.amount_received) > 0;
    var due = !isZero(view.amount_due);
    var phase;
    if (status === 'Paid') phase = 'paid';
    else if (confirming) phase = 'confirming';
    else if (status === 'Expired') phase = 'expired';
    else if (status === 'Underpaid') phase = 'underpaid';
    else if (seen && due) phase = 'partial';
    else if (seen) phase = 'confirming';
    else phase = 'waiting';

    var payable = status === 'Pending' && due;
    var headline = payable ? (seen ? 'amountStillDue' : 'amountToSend') : 'amountTotal';
    var confirmations = null;
    if (phase === 'confirming') {
      var m = view.confirmations_required;
      var n = m;
      var pending = view.transactions.filter(function (transaction) {
        return transaction.status === 'Pending';
      });
      if (pending.length) {
        n = Math.min.apply(
          null,
          pending.map(function (transaction) {
            return transaction.confirmations;
          }),
        );
      }
      confirmations = { n: Math.min(n, m), m: m };
    }
    return {
      phase: phase,
      payable: payable,
      headline: headline,
      headlineAmount: headline === 'amountStillDue' ? view.amount_due : view.amount,
      showReceived: seen && phase !== 'paid',
      confirmations: confirmations,
      detectionNotice:
        (view.detection === 'delayed' || view.detection === 'down') && phase !== 'paid',
    };
  }

  function qrVersion(paymentUri) {
    var hash = 0x811c9dc5;
    for (var index = 0; index < paymentUri.length; index += 1) {
      hash ^= paymentUri.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0).toString(16).padStart(8, '0');
  }

  function formatRemaining(milliseconds) {
    var total = Math.max(0, Math.ceil(milliseconds / 1000));
    var hours = Math.floor(total / 3600);
    var minutes = Math.floor((total % 3600) / 60);
    var seconds = total % 60;
    var mm = hours ? String(minutes).padStart(2, '0') : String(minutes);
    var clock = mm + ':' + String(seconds).padStart(2, '0');
    return hours ? hours + ':' + clock : clock;
  }

  function formatWithSymbols(value, symbols, minimumFractionDigits) {
    if (typeof value !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(value)) {
      throw new TypeError('Not a plain decimal: ' + JSON.stringify(value) + '.');
    }
    var parts = value.split('.');
    var integer = parts[0];
    var grouped = integer;
    if (integer.length >= 3 + symbols.minimumGroupingDigits) {
      grouped = '';
      for (var end = integer.length; end > 0; end -= 3) {
        var chunk = integer.slice(Math.max(0, end - 3), end);
        grouped = chunk + (grouped ? symbols.group + grouped : '');
      }
    }
    var digits = (parts[1] || '').padEnd(minimumFractionDigits || 0, '0');
    return digits ? grouped + symbols.decimal + digits : grouped;
  }

  function translate(messages, key, params) {
    var values = params || {};
    return String(messages[key]).replace(/\{([a-z]+)\}/g, function (placeholder, name) {
      return Object.prototype.hasOwnProperty.call(values, name)
        ? String(values[name])
        : placeholder;
    });
  }

  function tokenAmount(view, amount, symbols) {
    return formatWithSymbols(amount, symbols) + ' ' + view.currency;
  }

  function statusTexts(view, state, messages, symbols) {
    var detail = state.confirmations
      ? translate(messages, 'confirmations', state.confirmations)
      : '';
    var text = '';
    var hint = '';
    switch (state.phase) {
      case 'waiting':
        text = translate(messages, 'statusWaiting');
        break;
      case 'confirming':
        text = translate(messages, 'statusConfirming');
        break;
      case 'partial':
        text = translate(messages, 'statusPartial', {
          amount: tokenAmount(view, view.amount_due, symbols),
        });
        break;
      case 'paid':
        text = translate(messages, 'statusPaid');
        break;
      case 'expired':
        text = translate(messages, 'statusExpired');
        hint = translate(messages, 'expiredHint');
        break;
      case 'underpaid':
        text = translate(messages, 'statusUnderpaid', {
          received: tokenAmount(view, view.amount_received, symbols),
          amount: tokenAmount(view, view.amount, symbols),
        });
        hint = translate(messages, 'underpaidHint', { merchant: view.merchant_name });
        break;
    }
    return { text: text, hint: hint, detail: detail };
  }

  function detectionNotice(view, state, messages) {
    return state.detectionNotice
      ? translate(messages, 'detectionDelayed', { network: view.network_name })
      : '';
  }

  function transactionStatus(transaction, required, messages) {
    if (transaction.status === 'Confirmed') return translate(messages, 'txConfirmed');
    if (transaction.status === 'Reverted') return translate(messages, 'txReverted');
    return translate(messages, 'txPending', {
      n: Math.min(transaction.confirmations, required),
      m: required,
    });
  }

  function safeHttpUrl(value) {
    if (typeof value !== 'string') return null;
    try {
      var url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
    } catch {
      return null;
    }
  }

  var api = {
    compareDecimals: compareDecimals,
    pageStateOf: pageStateOf,
    qrVersion: qrVersion,
    formatRemaining: formatRemaining,
    formatWithSymbols: formatWithSymbols,
    translate: translate,
    statusTexts: statusTexts,
    detectionNotice: detectionNotice,
    transactionStatus: transactionStatus,
    safeHttpUrl: safeHttpUrl,
  };
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  if (typeof document === 'undefined') return;

  // ---- The page ----------------------------------------------------------------------------

  var stateBlock = document.getElementById('session-state');
  var configBlock = document.getElementById('page-config');
  if (!stateBlock || !configBlock) return;
  var config = JSON.parse(configBlock.textContent);
  var messages = config.messages;
  var symbols = config.symbols;
  var view = JSON.parse(stateBlock.textContent);
  var clockOffset = Date.parse(view.server_time) - Date.now();
  var lastServerTime = Date.parse(view.server_time);
  var state = null;
  var shownUri = view.payment_uri;
  var shownTransactions = '';
  var wasUrgent = null;
  var redirecting = false;
  var finished = false;
  var source = null;
  var polling = false;
  var pollTimer = null;
  var pollFailures = 0;

  function byId(id) {
    return document.getElementById(id);
  }

  function t(key, params) {
    return translate(messages, key, params);
  }

  function now() {
    return Date.now() + clockOffset;
  }

  function setText(element, text) {
    if (element && element.textContent !== text) element.textContent = text;
  }

  function setHidden(element, hidden) {
    if (element && element.hidden !== hidden) element.hidden = hidden;
  }

  function formatAmount(amount) {
    try {
      return formatWithSymbols(amount, symbols);
    } catch {
      return String(amount);
    }
  }

  function payAmount() {
    return state && state.headline === 'amountStillDue' ? view.amount_due : view.amount;
  }

  function render() {
    state = pageStateOf(view, now());
    var main = byId('checkout');
    main.setAttribute('data-phase', state.phase);
    byId('status').setAttribute('data-phase', state.phase);

    setText(byId('amount-label'), t(state.headline));
    setText(byId('amount-value'), formatAmount(state.headlineAmount));
    var received = byId('received');
    setHidden(received, !state.showReceived);
    setText(
      received,
      t('receivedOf', {
        received: formatAmount(view.amount_seen) + ' ' + view.currency,
        amount: formatAmount(view.amount) + ' ' + view.currency,
      }),
    );

    var texts;
    try {
      texts = statusTexts(view, state, messages, symbols);
    } catch {
      texts = { text: '', hint: '', detail: '' };
    }
    // Only real changes reach the live region, so a screen reader hears each state once.
    setText(byId('status-text'), texts.text);
    setText(byId('status-hint'), texts.hint);
    setHidden(byId('status-hint'), !texts.hint);
    setText(byId('status-detail'), texts.detail);
    setHidden(byId('status-detail'), !texts.detail);
    var progress = byId('status-progress');
    if (progress) {
      setHidden(progress, !state.confirmations);
      if (state.confirmations) {
        progress.max = Math.max(1, state.confirmations.m);
        progress.value = state.confirmations.n;
      }
    }

    // Its live region stays in the page; the notice inside it is announced when it appears.
    var notice = detectionNotice(view, state, messages);
    setText(byId('detection-notice'), notice);
    setHidden(byId('detection-notice'), !notice);

    setHidden(byId('paid'), state.phase !== 'paid');
    setHidden(byId('cancel'), state.phase === 'paid');
    setHidden(byId('pay'), !state.payable);
    setText(byId('pay-amount'), formatAmount(payAmount()));
    renderQr();
    renderTransactions();
    renderCountdown();

    if (state.phase === 'paid') {
      finish();
      startRedirect();
    }
  }

  function renderQr() {
    var image = byId('qr');
    if (!image) return;
    var amountText = formatAmount(payAmount()) + ' ' + view.currency;
    var alt =
      view.chain_family === 'EVM'
        ? t('qrAltPayment', { amount: amountText, network: view.network_name })
        : t('qrAltAddress', { network: view.network_name });
    if (image.alt !== alt) image.alt = alt;
    if (view.payment_uri !== shownUri) {
      shownUri = view.payment_uri;
      image.src = config.urls.qr + '?v=' + qrVersion(view.payment_uri);
    }
  }

  function renderTransactions() {
    var key = JSON.stringify([view.transactions, view.confirmations_required]);
    if (key === shownTransactions) return;
    shownTransactions = key;
    var list = byId('transaction-list');
    if (!list) return;
    while (list.firstChild) list.removeChild(list.firstChild);
    view.transactions.forEach(function (transaction) {
      var item = document.createElement('li');
      item.className = 'tx';
      item.setAttribute('data-status', transaction.status);
      var amount = document.createElement('span');
      amount.className = 'tx-amount';
      amount.textContent = formatAmount(transaction.amount) + ' ' + view.currency;
      var status = document.createElement('span');
      status.className = 'tx-status';
      status.textContent = transactionStatus(transaction, view.confirmations_required, messages);
      var hash = document.createElement('code');
      hash.className = 'tx-hash';
      hash.title = t('transaction');
      hash.textContent = transaction.tx_hash;
      item.appendChild(amount);
      item.appendChild(document.createTextNode(' '));
      item.appendChild(status);
      item.appendChild(document.createTextNode(' '));
      item.appendChild(hash);
      list.appendChild(item);
    });
    setHidden(byId('transactions'), !view.transactions.length);
  }

  function renderCountdown() {
    var element = byId('countdown');
    setHidden(element, !state.payable);
    if (!element || !state.payable) return;
    var remaining = Date.parse(view.expires_at) - now();
    var urgent = remaining <= config.urgentSeconds * 1000;
    var text =
      remaining <= 0
        ? t('timeUp')
        : t(urgent ? 'expiresSoon' : 'expiresIn', { time: formatRemaining(remaining) });
    setText(element, text);
    element.classList.toggle('is-urgent', urgent);
    // Announced once, when the quiet countdown turns prominent; never every second.
    if (urgent && wasUrgent === false && remaining > 0) announce(text);
    wasUrgent = urgent;
  }

  function announce(text) {
    var region = byId('copy-status');
    if (!region) return;
    region.textContent = '';
    window.setTimeout(function () {
      region.textContent = text;
    }, 50);
  }

  // ---- Redirect after payment --------------------------------------------------------------

  function startRedirect() {
    if (redirecting) return;
    var target = safeHttpUrl(view.success_url);
    var notice = byId('redirect-notice');
    if (!target || !notice) return;
    redirecting = true;
    var seconds = config.redirectDelaySeconds;
    var show = function () {
      setText(notice, t('redirecting', { merchant: view.merchant_name, seconds: seconds }));
    };
    show();
    setHidden(notice, false);
    var timer = window.setInterval(function () {
      seconds -= 1;
      if (seconds <= 0) {
        window.clearInterval(timer);
        window.location.assign(target);
        return;
      }
      show();
    }, 1000);
  }

  // ---- Live updates: Server-Sent Events, polling while the stream is down ------------------

  function receive(text) {
    var next;
    try {
      next = JSON.parse(text);
    } catch {
      return;
    }
    if (!next || next.id !== view.id || typeof next.status !== 'string') return;
    var serverTime = Date.parse(next.server_time);
    // A slow poll must not undo a newer event.
    if (serverTime < lastServerTime) return;
    lastServerTime = serverTime;
    clockOffset = serverTime - Date.now();
    view = next;
    render();
  }

  function setConnectionLost(lost) {
    var element = byId('connection');
    setText(element, lost ? t('reconnecting') : '');
    setHidden(element, !lost);
  }

  function connect() {
    if (typeof EventSource !== 'function') {
      startPolling();
      return;
    }
    try {
      source = new EventSource(config.urls.stream);
    } catch {
      startPolling();
      return;
    }
    source.addEventListener('session', function (event) {
      receive(event.data);
    });
    source.addEventListener('open', function () {
      stopPolling();
      setConnectionLost(false);
    });
    source.addEventListener('error', function () {
      // The browser retries a dropped stream by itself (CONNECTING); poll until it is back, and
      // for good when it gave up (CLOSED, e.g. a proxy that does not pass event streams).
      startPolling();
    });
  }

  function startPolling() {
    if (polling || finished) return;
    polling = true;
    schedulePoll(config.pollIntervalMs);
  }

  function stopPolling() {
    polling = false;
    if (pollTimer) window.clearTimeout(pollTimer);
    pollTimer = null;
  }

  function schedulePoll(delay) {
    if (!polling || finished || pollTimer) return;
    pollTimer = window.setTimeout(poll, delay);
  }

  function poll() {
    pollTimer = null;
    fetch(config.urls.state, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
      credentials: 'same-origin',
    })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.text();
      })
      .then(function (text) {
        pollFailures = 0;
        setConnectionLost(false);
        receive(text);
      })
      .catch(function () {
        pollFailures += 1;
        if (pollFailures >= 2) setConnectionLost(true);
      })
      .then(function () {
        schedulePoll(config.pollIntervalMs);
      });
  }

  function finish() {
    if (finished) return;
    finished = true;
    stopPolling();
    if (source) source.close();
    source = null;
    setConnectionLost(false);
  }

  // ---- Copy buttons ------------------------------------------------------------------------

  function copyWithSelection(text) {
    var buffer = document.createElement('textarea');
    buffer.value = text;
    buffer.setAttribute('readonly', '');
    buffer.setAttribute('aria-hidden', 'true');
    buffer.className = 'copy-buffer';
    document.body.appendChild(buffer);
    buffer.select();
    var copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    document.body.removeChild(buffer);
    return copied;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        if (!copyWithSelection(text)) throw new Error('copy failed');
      });
    }
    return copyWithSelection(text) ? Promise.resolve() : Promise.reject(new Error('copy failed'));
  }

  function selectContents(element) {
    var selection = window.getSelection && window.getSelection();
    if (!selection || !element) return;
    var range = document.createRange();
    range.selectNodeContents(element);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function setUpCopyButtons() {
    var buttons = document.querySelectorAll('button[data-copy]');
    Array.prototype.forEach.call(buttons, function (button) {
      var label = button.textContent;
      var reset = null;
      button.hidden = false;
      button.addEventListener('click', function () {
        var what = button.getAttribute('data-copy');
        var value = what === 'address' ? view.pay_address : payAmount();
        var field = byId(what === 'address' ? 'address' : 'pay-amount');
        copyText(value).then(
          function () {
            button.textContent = t('copied');
            button.classList.add('is-copied');
            announce(t(what === 'address' ? 'addressCopied' : 'amountCopied'));
          },
          function () {
            selectContents(field);
            announce(t('copyFailed'));
          },
        );
        if (reset) window.clearTimeout(reset);
        reset = window.setTimeout(function () {
          button.textContent = label;
          button.classList.remove('is-copied');
        }, 2000);
      });
    });
  }

  /** The refund link's id and secret, from the URL fragment (`#refund=re_…&secret=…`), or null. */
  function refundLink() {
    var params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
    var id = params.get('refund');
    var secret = params.get('secret');
    // The id goes into a URL path: only a refund id's shape (the server checks it anyway).
    return id && secret && /^re_[0-9A-Za-z]{22}$/.test(id) ? { id: id, secret: secret } : null;
  }

  /** POSTs JSON to the page's own origin; resolves with the status and the parsed answer. */
  function postJson(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    }).then(function (response) {
      return response.json().then(function (answer) {
        return { ok: response.ok, body: answer };
      });
    });
  }

  function formatTime(iso) {
    try {
      return new Date(iso).toLocaleString(config.locale, {
        dateStyle: 'medium',
        timeStyle: 'short',
      });
    } catch {
      return iso;
    }
  }

  /**
   * The refund form, for exactly the refund the link's fragment names. The session's link does
   * not open it: the section stays hidden unless the fragment holds a refund's id and secret and
   * the server takes that secret for that refund, answering its amounts (the page names no
   * refund: a session may have several waiting, each with its own link). A link arriving on a
   * page already open (only the fragment changes) opens its refund then; on a page rendered
   * before any refund waited, it reloads the page once. It posts the address as JSON (same
   * origin) with the secret, shows the answer in place (when the refund will be sent), and hides
   * itself at the refund's deadline, when the server would refuse the address anyway.
   */
  function setUpRefundForm() {
    var section = byId('refund');
    var form = byId('refund-form');
    if (!section || !form) {
      // A refund's link arriving on a page rendered before any refund waited (only the fragment
      // changes, nothing reloads): load the page again, which then carries the form.
      window.addEventListener('hashchange', function () {
        if (refundLink()) window.location.reload();
      });
      return;
    }
    var result = byId('refund-result');
    var delay = byId('refund-delay');
    var input = byId('refund-address');
    var button = form.querySelector('button');
    var base = section.getAttribute('data-refunds');
    // The refund shown (its link) and what the server said of it; a newer fragment wins.
    var link = null;
    var asked = null;
    var deadline = null;
    var accepted = false;
    var deadlineTimer = null;

    function urlOf(id, what) {
      return base + '/' + encodeURIComponent(id) + '/' + what;
    }

    function closeAtDeadline() {
      if (accepted || deadline === null || now() < deadline) return;
      setHidden(section, true);
    }

    /** Back to nothing offered: no refund, no amounts, an empty form. */
    function close() {
      link = null;
      deadline = null;
      accepted = false;
      setHidden(section, true);
      setText(byId('refund-text'), '');
      setHidden(delay, true);
      setHidden(form, false);
      setText(result, '');
      input.value = '';
      input.removeAttribute('aria-invalid');
      button.disabled = false;
    }

    /** Shows the form for the fragment's refund if the server takes its secret; else nothing. */
    function open() {
      var next = refundLink();
      if (link && next && link.id === next.id && link.secret === next.secret) return;
      if (asked && next && asked.id === next.id && asked.secret === next.secret) return;
      if (link) close();
      asked = next;
      if (!next) return;
      postJson(urlOf(next.id, 'access'), { secret: next.secret }).then(
        function (answer) {
          // Another fragment since: its own answer decides.
          if (asked !== next || !answer.ok || answer.body.id !== next.id) return;
          asked = null;
          deadline = Date.parse(answer.body.expires_at);
          if (now() >= deadline) return;
          link = next;
          setText(
            byId('refund-text'),
            t('refundText', {
              merchant: view.merchant_name,
              amount: tokenAmount(view, answer.body.net_amount, symbols),
              fee: tokenAmount(view, answer.body.fee, symbols),
              network: view.network_name,
            }),
          );
          if (answer.body.delay_minutes > 0) {
            var minutes = Number(answer.body.delay_minutes).toLocaleString(config.locale);
            setText(delay, t('refundDelay', { minutes: minutes }));
            setHidden(delay, false);
          }
          setHidden(section, false);
          if (deadlineTimer === null) deadlineTimer = window.setInterval(closeAtDeadline, 1000);
        },
        function () {
          if (asked === next) asked = null;
        },
      );
    }

    open();
    // The refund's link opened on a page already showing the session: only the fragment changes.
    window.addEventListener('hashchange', open);

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var address = input.value.trim();
      if (!address || !link) {
        input.focus();
        return;
      }
      var sending = link;
      button.disabled = true;
      postJson(urlOf(sending.id, 'destination'), { to_address: address, secret: sending.secret })
        .then(function (answer) {
          if (link !== sending) return;
          if (answer.ok) {
            accepted = true;
            setHidden(form, true);
            setHidden(delay, true);
            setText(
              result,
              answer.body.send_after
                ? t('refundScheduled', {
                    address: answer.body.to_address,
                    time: formatTime(answer.body.send_after),
                  })
                : t('refundSent', { address: answer.body.to_address }),
            );
          } else {
            var reason = (answer.body && answer.body.error && answer.body.error.message) || '';
            setText(result, t('refundFailed', { reason: reason }));
            button.disabled = false;
            input.setAttribute('aria-invalid', 'true');
          }
        })
        .catch(function () {
          if (link !== sending) return;
          setText(result, t('refundFailed', { reason: t('reconnecting') }));
          button.disabled = false;
        });
    });
  }

  // ---- Start -------------------------------------------------------------------------------

  setUpCopyButtons();
  setUpRefundForm();
  render();
  if (!finished) connect();
  window.setInterval(function () {
    if (finished) return;
    var before = state && state.phase;
    var payable = state && state.payable;
    var next = pageStateOf(view, now());
    // The deadline passing changes the state without a message from the server.
    if (next.phase !== before || next.payable !== payable) render();
    else renderCountdown();
  }, 1000);
})();
