// CLup progressive enhancement. Every page works without this file; with it the home page
// gains "use my location" and a map of the stores (Leaflet, when the page provides it), a
// store's form a map to pick its position on, and a
// ticket keeps its figures up to date without reloading, says when its status changes, and
// offers push notifications on this device.
"use strict";

(function () {
  // The page's texts for this script, in its language (a JSON block the server writes).
  var texts = null;
  function text(key) {
    if (texts === null) {
      var block = document.getElementById("clup-texts");
      try { texts = block ? JSON.parse(block.textContent) : {}; } catch (error) { texts = {}; }
    }
    return texts[key] || key;
  }

  // The text of `key` with its {names} filled in from `values`.
  function fill(key, values) {
    return text(key).replace(/\{(\w+)\}/g, function (whole, name) {
      return values && name in values ? String(values[name]) : whole;
    });
  }

  // CLup's clock, which the entrance goes by. Every answer to a kiosk gives CLup's time
  // (CLup-Time); the kiosk keeps its offset from its own clock (in localStorage, so a page
  // reopened offline still knows it), dates its scans and printed tickets in CLup's time, and
  // applies the entrance rules offline by it, however far a cheap tablet's clock has drifted.
  var Clock = (function () {
    var KEY = "clup-clock-offset";
    var offset = 0;
    try { offset = Number(window.localStorage.getItem(KEY)) || 0; } catch (error) { offset = 0; }
    function learn(response, sentAt) {
      var told = Date.parse(response.headers.get("CLup-Time") || "");
      var receivedAt = Date.now();
      // CLup stamped its answer somewhere between sending and receiving: a slow answer says
      // too little of when.
      if (isNaN(told) || receivedAt - sentAt > 4000) return;
      offset = Math.round(told - (sentAt + receivedAt) / 2);
      try { window.localStorage.setItem(KEY, String(offset)); } catch (error) { /* kept for this page only */ }
    }
    return {
      now: function () { return Date.now() + offset; },
      offset: function () { return offset; },
      learn: learn
    };
  })();

  // A staff note when this device's clock is more than a minute off CLup's, or null.
  function clockNote() {
    var minutes = Math.round(Math.abs(Clock.offset()) / 60000);
    if (Math.abs(Clock.offset()) < 60000) return null;
    return fill(Clock.offset() < 0 ? "js.clockFast" : "js.clockSlow", { minutes: minutes });
  }

  // What a kiosk's page says of itself with each request, for its manager to watch: the
  // script it runs (its fingerprint), what it made offline and still holds, and its clock.
  var heldOffline = 0;
  var scriptVersion = (function () {
    var script = document.querySelector("script[src*='/assets/app.']");
    var found = script && /\/assets\/app\.([0-9a-f]+)\.js/.exec(script.getAttribute("src"));
    return found ? found[1] : "";
  })();
  function kioskHeaders(headers) {
    if (window.location.pathname.indexOf("/kiosk") !== 0) return headers;
    headers["CLup-Kiosk-Version"] = scriptVersion;
    headers["CLup-Kiosk-Queued"] = String(heldOffline);
    headers["CLup-Kiosk-Clock"] = String(Clock.offset());
    return headers;
  }

  // A short tone, or tones one after another (Hz), where the browser allows sound.
  function chime(tones) {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      var audio = new Context();
      (tones || [880]).forEach(function (frequency, index) {
        var start = audio.currentTime + index * 0.45;
        var tone = audio.createOscillator();
        var gain = audio.createGain();
        tone.frequency.value = frequency;
        gain.gain.setValueAtTime(0.2, start);
        gain.gain.exponentialRampToValueAtTime(0.001, start + 0.6);
        tone.connect(gain).connect(audio.destination);
        tone.start(start);
        tone.stop(start + 0.6);
      });
    } catch (error) { /* a browser that allows no sound before a tap */ }
  }

  // `words` said aloud in the page's language, where the browser can speak.
  function say(words) {
    if (!window.speechSynthesis || !window.SpeechSynthesisUtterance) return;
    var utterance = new window.SpeechSynthesisUtterance(words);
    utterance.lang = document.documentElement.lang || "en";
    utterance.rate = 0.9;
    window.speechSynthesis.cancel();
    window.speechSynthesis.speak(utterance);
  }

  // A fetch from the same site that wants JSON back, given up after `seconds`.
  function fetchWithin(url, options, seconds) {
    var controller = window.AbortController ? new AbortController() : null;
    var timer = controller ? window.setTimeout(function () { controller.abort(); }, seconds * 1000) : null;
    options.credentials = "same-origin";
    options.headers = kioskHeaders({ Accept: "application/json" });
    if (controller) options.signal = controller.signal;
    var sentAt = Date.now();
    return fetch(url, options).then(function (response) {
      window.clearTimeout(timer);
      Clock.learn(response, sentAt);
      return response;
    }, function (error) {
      window.clearTimeout(timer);
      throw error;
    });
  }

  // An IndexedDB database of this page's, made by `upgrade` the first time.
  function openDatabase(name, upgrade) {
    return new Promise(function (resolve, reject) {
      var request = window.indexedDB.open(name, 1);
      request.onupgradeneeded = function () { upgrade(request.result); };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }

  // `work(tx)` in one transaction over the stores `names`: resolves, once it has committed,
  // with the `result` of what `work` returned, if it has one.
  function storeTransaction(db, names, mode, work) {
    return new Promise(function (resolve, reject) {
      var tx = db.transaction(names, mode);
      var result = work(tx);
      tx.oncomplete = function () { resolve(result && "result" in result ? result.result : undefined); };
      tx.onerror = function () { reject(tx.error); };
    });
  }

  function navigateTo(lat, lon) {
    // Remembered for the next visit, as a place chosen in the form is by the server (which
    // sets no cookie for a point, so guests' pages for it stay shared in nginx's cache).
    document.cookie = "where=" + lat.toFixed(5) + ":" + lon.toFixed(5) + "; Path=/; Max-Age=31536000; SameSite=Lax"
      + (window.location.protocol === "https:" ? "; Secure" : "");
    var params = new URLSearchParams();
    params.set("lat", lat.toFixed(5));
    params.set("lon", lon.toFixed(5));
    // The means of transport stays as chosen: the page remembers it (the mode cookie).
    window.location.assign("/?" + params.toString());
  }

  function setUpLocate() {
    var button = document.querySelector("[data-locate]");
    var status = document.querySelector("[data-locate-status]");
    if (!button || !("geolocation" in navigator)) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      status.hidden = false;
      status.textContent = text("js.locating");
      navigator.geolocation.getCurrentPosition(
        function (position) { navigateTo(position.coords.latitude, position.coords.longitude); },
        function (error) {
          status.textContent = error.code === 1
            ? text("js.locationOff")
            : text("js.locationFailed");
        },
        { enableHighAccuracy: false, timeout: 10000, maximumAge: 300000 }
      );
    });
  }

  function setUpMap() {
    var element = document.getElementById("map");
    var box = document.querySelector("[data-map-box]");
    if (!element || !box || typeof L === "undefined") return;
    // Folded on a phone, open beside the list on a wide screen; Leaflet is sized once shown.
    box.hidden = false;
    if (window.matchMedia("(min-width: 60rem)").matches) box.open = true;
    var map = null;
    function show() {
      if (!box.open) return;
      if (map) { map.invalidateSize(); return; }
      map = draw(element);
    }
    box.addEventListener("toggle", show);
    show();
  }

  function draw(element) {
    var here = [parseFloat(element.dataset.lat), parseFloat(element.dataset.lon)];
    var map = L.map(element, { scrollWheelZoom: false }).setView(here, 13);
    L.tileLayer(element.dataset.tiles, { maxZoom: 19, attribution: element.dataset.attribution }).addTo(map);
    L.marker(here, { icon: L.divIcon({ className: "map-you", iconSize: [14, 14] }), title: "You" }).addTo(map);
    document.querySelectorAll("[data-store]").forEach(function (item) {
      var marker = L.marker([parseFloat(item.dataset.lat), parseFloat(item.dataset.lon)], {
        icon: L.divIcon({ className: "map-marker light-" + item.dataset.light, iconSize: [18, 18] }),
        title: item.dataset.name
      }).addTo(map);
      var popup = document.createElement("div");
      var link = document.createElement("a");
      link.href = item.dataset.href;
      link.textContent = item.dataset.name;
      var wait = document.createElement("div");
      wait.textContent = text("js.wait").replace("{wait}", item.dataset.wait);
      popup.appendChild(link);
      popup.appendChild(wait);
      marker.bindPopup(popup);
    });
    map.on("click", function (event) { navigateTo(event.latlng.lat, event.latlng.lng); });
    return map;
  }

  // A store's position, picked on a map (registering or editing a store): a tap or a dragged
  // pin fills the latitude and longitude fields; typing in them moves the pin. Without this
  // script, or without tiles, the fields are typed as before.
  function setUpPositionPicker() {
    var box = document.querySelector("[data-position-picker]");
    var latitude = document.getElementById("latitude");
    var longitude = document.getElementById("longitude");
    if (!box || !latitude || !longitude || typeof L === "undefined") return;
    box.hidden = false;
    function typed() {
      var lat = parseFloat(latitude.value), lon = parseFloat(longitude.value);
      return isFinite(lat) && isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? L.latLng(lat, lon) : null;
    }
    var element = document.getElementById("position-map");
    var start = typed();
    var map = L.map(element, { scrollWheelZoom: false }).setView(start || [45.4642, 9.19], start ? 16 : 12);
    L.tileLayer(element.dataset.tiles, { maxZoom: 19, attribution: element.dataset.attribution }).addTo(map);
    var pin = null;
    function place(point, fill) {
      if (!pin) {
        pin = L.marker(point, {
          draggable: true, title: text("js.storePin"), icon: L.divIcon({ className: "map-pin-icon", html: "<span class=\"map-pin\"></span>", iconSize: [22, 22], iconAnchor: [11, 26] })
        }).addTo(map);
        pin.on("dragend", function () { place(pin.getLatLng().wrap(), true); });
      } else {
        pin.setLatLng(point);
      }
      if (fill) {
        latitude.value = point.lat.toFixed(5);
        longitude.value = point.lng.toFixed(5);
      }
    }
    if (start) place(start, false);
    map.on("click", function (event) { place(event.latlng.wrap(), true); });
    [latitude, longitude].forEach(function (field) {
      field.addEventListener("change", function () {
        var point = typed();
        if (point) { place(point, false); map.panTo(point); }
      });
    });
  }

  // A live ticket asks for its status every 10 s while the page is visible (every 30 s when
  // hidden), and says what changed: the figures in place, and on a change of status a banner,
  // the page title, a vibration and a short tone where the browser allows. A failed refresh
  // shows that the page may be out of date, until one succeeds. Without this script the page
  // reloads itself (a meta refresh inside <noscript>).
  function setUpLiveTicket() {
    var ticket = document.querySelector("[data-status-url]");
    if (!ticket || !ticket.dataset.statusUrl || !window.fetch) return;
    var url = ticket.dataset.statusUrl;
    var status = ticket.dataset.status;
    var banner = ticket.querySelector("[data-alert]");
    var lost = ticket.querySelector("[data-connection-lost]");
    var title = document.title;
    var timer = null;

    function announce(data) {
      banner.textContent = text("js.newAt").replace("{time}", data.asOf).replace("{headline}", data.headline);
      banner.className = "ticket-alert alert-" + data.status;
      banner.hidden = false;
      document.title = "● " + data.headline + " · CLup";
      if (navigator.vibrate) navigator.vibrate([300, 150, 300]);
      chime();
      var section = ticket.querySelector(".ticket-status");
      if (section) section.className = "ticket-status status-" + data.status;
      var over = ["done", "cancelled", "expired"].indexOf(data.status) >= 0;
      ticket.querySelectorAll(".qr, .travel-form, .cancel-form, .confirm-form").forEach(function (element) {
        if (over || element.classList.contains("confirm-form")) element.hidden = true;
      });
    }

    function schedule() {
      window.clearTimeout(timer);
      timer = window.setTimeout(refresh, document.hidden ? 30000 : 10000);
    }

    function refresh() {
      // A request that hangs counts as lost too (a stalled network answers nothing at all).
      var controller = window.AbortController ? new AbortController() : null;
      var stalled = controller ? window.setTimeout(function () { controller.abort(); }, 8000) : null;
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store",
                   signal: controller ? controller.signal : undefined })
        .then(function (response) {
          window.clearTimeout(stalled);
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (data) {
          lost.hidden = true;
          if (status && data.status !== status) announce(data);
          status = data.status;
          ticket.querySelectorAll("[data-field]").forEach(function (element) {
            var value = data[element.dataset.field];
            if (typeof value === "string") element.textContent = value;
          });
          var leave = ticket.querySelector(".leave-by");
          if (leave) leave.hidden = typeof data.leaveBy !== "string";
        })
        .catch(function () {
          window.clearTimeout(stalled);
          lost.hidden = false;
        })
        .then(schedule);
    }

    // "Time my departure from where I am": only once the customer presses it (remembered for
    // this ticket while the tab is open), the browser's position is sent when it has moved
    // 300 m or 3 minutes have passed, and the leave-by time and the call follow it. Nothing
    // is sent before, nor after "Stop".
    var follow = ticket.querySelector("[data-follow-position]");
    if (follow && follow.dataset.followPosition && navigator.geolocation && window.sessionStorage) {
      var followStatus = ticket.querySelector("[data-follow-status]");
      var consent = "clup-follow:" + follow.dataset.followPosition;
      var watch = null;
      var sent = null;

      var metres = function (a, b) {  // equirectangular: exact enough over a few kilometres
        var rad = Math.PI / 180;
        var x = (b.lon - a.lon) * rad * Math.cos((a.lat + b.lat) / 2 * rad);
        var y = (b.lat - a.lat) * rad;
        return Math.sqrt(x * x + y * y) * 6371000;
      };

      var report = function (position) {
        var here = { lat: position.coords.latitude, lon: position.coords.longitude, at: Date.now() };
        if (sent && metres(sent, here) < 300 && here.at - sent.at < 180000) return;
        sent = here;
        var csrf = document.querySelector("input[name=csrf]");
        var body = new URLSearchParams();
        body.set("csrf", csrf ? csrf.value : "");
        body.set("lat", here.lat.toFixed(5));
        body.set("lon", here.lon.toFixed(5));
        fetch(follow.dataset.followPosition, { method: "POST", credentials: "same-origin", body: body })
          .then(function (response) {
            if (response.status === 422) {  // a position the line-up's rules do not take: said why
              return response.json().then(function (answer) { followStatus.textContent = answer.message; });
            }
            if (!response.ok) throw new Error("HTTP " + response.status);
            var time = new Date();
            followStatus.textContent = text("js.followUsed").replace("{time}",
              ("0" + time.getHours()).slice(-2) + ":" + ("0" + time.getMinutes()).slice(-2));
            refresh();
          })
          .catch(function () {
            sent = null;
            followStatus.textContent = text("js.followFailed");
          });
      };

      var start = function () {
        window.sessionStorage.setItem(consent, "1");
        follow.textContent = text("js.followStop");
        followStatus.hidden = false;
        followStatus.textContent = text("js.locating");
        watch = navigator.geolocation.watchPosition(report, function () {
          followStatus.textContent = text("js.followNoPosition");
        }, { maximumAge: 60000, timeout: 30000 });
      };

      var stop = function () {
        window.sessionStorage.removeItem(consent);
        if (watch !== null) navigator.geolocation.clearWatch(watch);
        watch = null;
        sent = null;
        follow.textContent = text("js.followStart");
        followStatus.textContent = text("js.followStopped");
      };

      follow.hidden = false;
      follow.addEventListener("click", function () { if (watch === null) start(); else stop(); });
      if (window.sessionStorage.getItem(consent)) start();
    }

    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) { document.title = title; refresh(); }
    });
    window.addEventListener("online", refresh);
    schedule();
  }

  // "Notify me on this device": registers the service worker, asks permission and subscribes
  // to push messages with the server's key, then gives the subscription to the server. Shown
  // only where the browser can do all of it.
  function setUpPush() {
    var key = document.querySelector("meta[name=clup-push-key]");
    var offers = document.querySelectorAll("[data-push-offer]");
    if (!key || !offers.length || !("serviceWorker" in navigator) || !("PushManager" in window)
        || !("Notification" in window)) return;
    var csrf = document.querySelector("input[name=csrf]");

    function keyBytes(text) {
      var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
      base64 += "===".slice((base64.length + 3) % 4);
      var raw = window.atob(base64);
      var bytes = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
      return bytes;
    }

    function send(action, subscription) {
      var json = subscription.toJSON();
      var body = new URLSearchParams();
      body.set("csrf", csrf ? csrf.value : "");
      body.set("endpoint", json.endpoint);
      body.set("p256dh", json.keys.p256dh);
      body.set("auth", json.keys.auth);
      return fetch(action, { method: "POST", credentials: "same-origin", body: body }).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
      });
    }

    navigator.serviceWorker.register("/sw.js").then(function (registration) {
      return registration.pushManager.getSubscription().then(function (existing) {
        offers.forEach(function (offer) {
          if (!offer.dataset.pushOffer) return;
          var button = offer.querySelector("[data-push-enable]");
          var state = offer.querySelector("[data-push-state]");
          offer.hidden = false;
          if (existing && Notification.permission === "granted") {
            button.hidden = true;
            state.textContent = text("js.notificationsOn");
            send(offer.dataset.pushOffer, existing).catch(function () {});
            return;
          }
          if (Notification.permission === "denied") {
            button.hidden = true;
            state.textContent = text("js.notificationsBlocked");
            return;
          }
          button.addEventListener("click", function () {
            button.disabled = true;
            state.textContent = text("js.asking");
            Notification.requestPermission()
              .then(function (permission) {
                if (permission !== "granted") throw new Error("not allowed");
                return registration.pushManager.subscribe({
                  userVisibleOnly: true, applicationServerKey: keyBytes(key.content)
                });
              })
              .then(function (subscription) { return send(offer.dataset.pushOffer, subscription); })
              .then(function () {
                button.hidden = true;
                state.textContent = text("js.notificationsOn");
              })
              .catch(function () {
                button.disabled = false;
                state.textContent = text("js.notificationsFailed");
              });
          });
        });
      });
    }).catch(function () {});
  }

  function setUpPrintAndConfirm() {
    document.querySelectorAll("[data-print]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { window.print(); });
    });
    document.querySelectorAll("[data-confirm]").forEach(function (button) {
      button.addEventListener("click", function (event) {
        if (!window.confirm(button.dataset.confirm)) event.preventDefault();
      });
    });
  }

  // The kiosk's walk-in ticket prints itself (a kiosk browser runs with silent printing) and
  // the screen goes back to the dispenser a few seconds later.
  // A screen that changes by itself (the kiosk's board, a printed ticket going back to the
  // dispenser): reloaded or sent on by the script, so no timed meta refresh is needed where
  // scripts run (the page keeps one inside <noscript> for where they do not).
  function setUpRefresh() {
    var element = document.querySelector("[data-refresh-seconds]");
    if (!element) return;
    var seconds = parseInt(element.dataset.refreshSeconds, 10);
    if (!(seconds > 0)) return;
    window.setTimeout(function () {
      if (heldOnScreen) return;
      if (element.dataset.refreshTo) nextCustomer(element.dataset.refreshTo);
      else window.location.reload();
    }, seconds * 1000);
  }

  // A table of live figures (the chain overview) is fetched again every `data-live-seconds`
  // while the page is visible, and its rows and its "updated" line replaced in place: the page
  // keeps its scroll, its region and its order. A failed refresh leaves the rows as they were
  // and says they may be out of date, until one succeeds. Without this script the browser's
  // reload does the same.
  function setUpLiveTable() {
    var table = document.querySelector("[data-live-table]");
    if (!table || !table.tBodies.length || !window.DOMParser) return;
    var seconds = parseInt(table.dataset.liveSeconds, 10) || 20;
    var updated = document.querySelector("[data-live-updated]");
    var busy = false;
    function refresh() {
      if (document.hidden || busy) return;
      busy = true;
      fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.text();
        })
        .then(function (html) {
          var page = new DOMParser().parseFromString(html, "text/html");
          var rows = page.querySelector("[data-live-table] tbody");
          var line = page.querySelector("[data-live-updated]");
          if (!rows) throw new Error("no table");
          table.replaceChild(document.importNode(rows, true), table.tBodies[0]);
          if (updated && line) updated.textContent = line.textContent;
        })
        .catch(function () {
          if (updated) updated.textContent = text("js.liveStale");
        })
        .then(function () { busy = false; });
    }
    window.setInterval(refresh, seconds * 1000);
  }

  // A button that prints the page (a priority ticket on the door console): shown only where
  // this script runs; without it the browser's own Print does the same.
  function setUpPrintButtons() {
    document.querySelectorAll("[data-print]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { window.print(); });
    });
  }

  function setUpAutoPrint() {
    if (!document.querySelector("[data-autoprint]")) return;
    window.addEventListener("afterprint", function () {
      window.setTimeout(function () { if (!heldOnScreen) nextCustomer("/kiosk/dispenser"); }, 4000);
    });
    window.setTimeout(function () { window.print(); }, 300);
  }

  // A customer at the dispenser may ask for larger text and for the screen to be read aloud
  // (the buttons, or + and 0 on a keypad); both last until the next customer. The choices on
  // the screen are radio buttons and a button, so Tab, the arrows and Enter work everywhere;
  // the digits choose how many people. The printed ticket says its number aloud, and "I need
  // more time" keeps it on screen (EN 301 549's time extension).
  var LARGE_TEXT = "clup-large-text";
  var READ_ALOUD = "clup-read-aloud";
  var heldOnScreen = false;

  function kioskChoice(name) {
    try { return window.sessionStorage.getItem(name) === "on"; } catch (error) { return false; }
  }

  function setKioskChoice(name, on) {
    try { window.sessionStorage.setItem(name, on ? "on" : "off"); } catch (error) { /* this page only */ }
  }

  // Back to the dispenser for the next customer, who starts with the screen as it was.
  function nextCustomer(address) {
    try {
      window.sessionStorage.removeItem(LARGE_TEXT);
      window.sessionStorage.removeItem(READ_ALOUD);
    } catch (error) { /* nothing kept */ }
    window.location.assign(address);
  }

  function setUpKioskAccess() {
    if (!document.body.classList.contains("kiosk")) return;
    document.documentElement.classList.toggle("large-text", kioskChoice(LARGE_TEXT));
    // The printed ticket: its number and what to do, aloud; more time on request; the way
    // back starts the next customer afresh.
    var receipt = document.querySelector(".receipt[data-autoprint]");
    if (receipt) {
      if (kioskChoice(READ_ALOUD)) {
        say(Array.prototype.map.call(receipt.querySelectorAll("[data-say]"), function (e) { return e.dataset.say; }).join(" "));
      }
      var more = document.querySelector("[data-more-time]");
      if (more) {
        more.hidden = false;
        more.querySelector("button").addEventListener("click", function () {
          heldOnScreen = true;
          more.hidden = true;
          var note = document.querySelector("[data-reset-note]");
          if (note) note.textContent = text("js.moreTimeGiven");
          if (kioskChoice(READ_ALOUD)) say(text("js.moreTimeGiven"));
        });
      }
      document.querySelectorAll(".kiosk-next a").forEach(function (link) {
        link.addEventListener("click", function (event) {
          event.preventDefault();
          nextCustomer(link.getAttribute("href"));
        });
      });
    }
    var access = document.querySelector("[data-kiosk-access]");
    var form = document.querySelector("form[data-dispenser]");
    if (!access || !form) return;
    access.hidden = false;
    var keys = form.querySelector("[data-kiosk-keys]");
    if (keys) keys.hidden = false;
    var large = access.querySelector("[data-large-text]");
    var aloud = access.querySelector("[data-read-aloud]");

    function show() {
      large.setAttribute("aria-pressed", kioskChoice(LARGE_TEXT) ? "true" : "false");
      aloud.setAttribute("aria-pressed", kioskChoice(READ_ALOUD) ? "true" : "false");
      document.documentElement.classList.toggle("large-text", kioskChoice(LARGE_TEXT));
    }
    // What the screen says, aloud: its title, the wait, then how to use it.
    function readScreen() {
      var parts = ["h1", "[data-field=wait]", "[data-kiosk-keys]"].map(function (selector) {
        var element = document.querySelector(selector);
        return element ? element.textContent.trim() : "";
      });
      say(parts.filter(Boolean).map(function (part) { return part.replace(/[.:]$/, ""); }).join(". ") + ".");
    }
    function toggleLarge() { setKioskChoice(LARGE_TEXT, !kioskChoice(LARGE_TEXT)); show(); }
    function toggleAloud() {
      setKioskChoice(READ_ALOUD, !kioskChoice(READ_ALOUD));
      show();
      if (kioskChoice(READ_ALOUD)) readScreen();
      else if (window.speechSynthesis) window.speechSynthesis.cancel();
    }
    large.addEventListener("click", toggleLarge);
    aloud.addEventListener("click", toggleAloud);
    show();
    // Each control says what it is as it takes the focus, while reading aloud is on.
    form.addEventListener("focusin", function (event) {
      if (!kioskChoice(READ_ALOUD)) return;
      var target = event.target;
      var label = target.closest("label");
      var legend = target.closest("fieldset") && target.closest("fieldset").querySelector("legend");
      var words = label ? label.textContent.trim() : target.textContent.trim();
      if (legend && target.type === "radio") words = legend.textContent.trim() + ": " + words;
      say(words);
    });
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      // Typing an address is typing, not choosing.
      if (event.target && event.target.matches && event.target.matches("input[type=email], input[type=text]")) return;
      if (event.key === "+") { event.preventDefault(); toggleLarge(); return; }
      if (event.key === "0") { event.preventDefault(); toggleAloud(); return; }
      if (/^[1-9]$/.test(event.key)) {
        var radio = form.querySelector("input[name=people][value='" + event.key + "']");
        if (!radio) return;
        event.preventDefault();
        radio.checked = true;
        radio.focus();
      }
    });
  }

  // The door offline. The scanner keeps what the server last said of the store (its public
  // keys, rules, live tickets and the count inside: /kiosk/scanner/state) in IndexedDB. A scan
  // that gets no answer within a short deadline is decided here, under the entrance's own
  // rules (Entrance.verdict in the server), and queued with its id and time; the queue is sent
  // in order once the server answers again, and the server applies each scan once, or reports
  // a conflict to staff. Every door lets people out; the doors staff chose let people in, each
  // up to its lease: a share of the free places CLup holds for it, renewed every few seconds
  // while online (DoorLease in the server), so doors offline together never overfill the store.
  var DoorOffline = (function () {
    var DB_NAME = "clup-door";
    var ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

    function openStore() {
      return openDatabase(DB_NAME, function (db) {
        db.createObjectStore("state");
        db.createObjectStore("queue", { keyPath: "seq", autoIncrement: true });
      });
    }

    function transaction(db, name, mode, work) {
      return storeTransaction(db, name, mode, function (tx) { return work(tx.objectStore(name)); });
    }

    function base32(text) {
      var bits = 0, value = 0, out = [];
      text = text.toUpperCase();
      for (var i = 0; i < text.length; i++) {
        var index = ALPHABET.indexOf(text[i]);
        if (index < 0) return null;
        value = (value << 5 | index) & 0xFFFF;
        bits += 5;
        if (bits >= 8) { bits -= 8; out.push((value >> bits) & 0xFF); }
      }
      return new Uint8Array(out);
    }

    function base64url(text) {
      var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
      return Uint8Array.from(binary, function (c) { return c.charCodeAt(0); });
    }

    // A signed code's fields (DoorCode in the server): 21 bytes, then a 64-byte signature.
    function parse(code) {
      if (code.length !== 136) return null;
      var bytes = base32(code);
      if (!bytes || bytes.length !== 85 || bytes[0] !== 2) return null;
      function number(from, count) {
        var value = 0;
        for (var i = from; i < from + count; i++) value = value * 256 + bytes[i];
        return value;
      }
      var kind = ["lineUp", "booking", "walkIn"][bytes[13]];
      if (!kind) return null;
      var minutes = number(17, 4);
      return {
        keyId: number(1, 2), storeId: number(3, 4), id: number(7, 6), kind: kind, people: bytes[14],
        number: number(15, 2), slotStart: minutes ? minutes * 60000 : null,
        payload: bytes.slice(0, 21), signature: bytes.slice(21)
      };
    }

    function verify(code, state, now) {
      var key = (state.keys || []).filter(function (k) {
        return k.keyId === code.keyId && (!k.retiresAt || Date.parse(k.retiresAt) > now);
      })[0];
      if (!key || !window.crypto || !window.crypto.subtle) return Promise.resolve(false);
      return window.crypto.subtle.importKey("raw", base64url(key.publicKey), { name: "Ed25519" }, false, ["verify"])
        .then(function (publicKey) {
          return window.crypto.subtle.verify({ name: "Ed25519" }, publicKey, code.signature, code.payload);
        })
        .catch(function () { return false; });
    }

    // The entrance rules, as the server's Entrance.verdict applies them, on what the kiosk
    // knows: the state it kept and what it did since.
    function decide(text, state, now) {
      var code = parse(text);
      if (!code) return Promise.resolve({ result: "refused", reason: "unknownCode" });
      return verify(code, state, now).then(function (genuine) {
        if (!genuine) return { result: "refused", reason: "unknownCode" };
        if (code.storeId !== state.storeId) return { result: "refused", reason: "otherStore" };
        var ticket = state.tickets.filter(function (t) { return t.id === code.id; })[0];
        var printedOffline = (state.offlineBlocks || []).some(function (b) { return b.first <= code.id && code.id <= b.last; });
        var status;
        if (ticket) {
          status = ticket.state;
        } else if (printedOffline && code.kind === "walkIn") {
          // From a block a kiosk reserved for printing tickets offline, not yet seen by CLup.
          status = "waiting";
          ticket = { id: code.id, number: code.number, people: code.people, state: status, printedOffline: true };
        } else if (code.id > state.lastReservationId) {
          // Made after the kept state: a booking's slot is in its code; a line-up's turn is not known.
          status = code.kind === "booking" ? "booked" : "waiting";
          ticket = { id: code.id, number: code.number, people: code.people, state: status,
                     slotStart: code.slotStart ? new Date(code.slotStart).toISOString() : null };
        } else {
          return { result: "refused", reason: "ended", number: code.number };
        }
        var verdict = rules(status, ticket, state, now);
        return { result: verdict.result, reason: verdict.reason, number: code.number, people: ticket.people, id: code.id };
      });
    }

    // The rules themselves, for a ticket whose status is known: the same table of cases
    // (Tests/Shared/entrance-cases.json) checks them and the server's.
    function rules(status, ticket, state, now) {
      function refused(reason) { return { result: "refused", reason: reason }; }
      if (status === "inside") return { result: "exit" };
      if (!state.admitsOffline) return refused(state.admittingDoors ? "notAuthority" : "noDoorAdmits");
      if (status === "waiting") {
        // A walk-in ticket printed while CLup could not be reached: nobody could call it, so
        // it goes in when there is room.
        if (!ticket.printedOffline) return refused("notYetCalled");
      } else if (status === "called") {
        if (now > Date.parse(ticket.calledAt) + state.callGraceMinutes * 60000) return refused("expired");
      } else if (status === "booked") {
        var slot = Date.parse(ticket.slotStart);
        if (now < slot - state.entryBeforeMinutes * 60000) return refused("tooEarly");
        if (now > slot + state.entryAfterMinutes * 60000) return refused("tooLate");
      } else {
        return refused("ended");
      }
      if (state.peopleInside + ticket.people > state.capacity) return refused("full");
      var lease = state.lease;
      if (!lease || now > Date.parse(lease.expiresAt)) return refused("leaseEnded");
      if (ticket.people > lease.places) return refused("leaseUsed");
      return { result: "enter" };
    }

    // What a decided entry or exit changes in the kept state.
    function apply(state, answer) {
      var ticket = state.tickets.filter(function (t) { return t.id === answer.id; })[0];
      if (!ticket) {
        ticket = { id: answer.id, number: answer.number, people: answer.people };
        state.tickets.push(ticket);
      }
      ticket.state = answer.result === "enter" ? "inside" : "done";
      state.peopleInside = Math.max(0, state.peopleInside + (answer.result === "enter" ? answer.people : -answer.people));
      // The lease is spent by an entry, and given back by an exit, as CLup does when it hears.
      if (state.lease && state.admitsOffline) {
        state.lease.places = Math.max(0, state.lease.places + (answer.result === "enter" ? -answer.people : answer.people));
      }
    }

    // What an answer from the server says of a ticket, until the state is read again.
    function learn(state, report) {
      if (report.result !== "enter" && report.result !== "exit") return;
      var ticket = state.tickets.filter(function (t) { return t.number === report.number; })[0];
      if (ticket) ticket.state = report.result === "enter" ? "inside" : "done";
      if (typeof report.peopleInside === "number") state.peopleInside = report.peopleInside;
      // An entry CLup made here spent the lease there too.
      if (report.result === "enter" && state.lease) state.lease.places = Math.max(0, state.lease.places - (report.people || 0));
    }

    return { openStore: openStore, transaction: transaction, decide: decide, rules: rules, apply: apply, learn: learn,
             parse: parse };
  })();
  // The door's rules, for the browser check that holds them to the shared table of cases.
  window.clupDoorRules = DoorOffline.rules;

  // The scanner: a USB or Bluetooth scanner types the code and Enter into the input, which
  // keeps the focus; the camera reads codes where the browser has BarcodeDetector. Scans go
  // through fetch so the page never reloads; the same code twice within 3 s counts once
  // (a camera sees a code in many frames; a shaky hand scans twice).
  function setUpScanner() {
    var root = document.querySelector("[data-scanner]");
    var form = document.querySelector("[data-scan-form]");
    if (!root || !form || !window.fetch) return;
    var input = form.querySelector("[data-scan-input]");
    var result = root.querySelector("[data-scan-result]");
    var busy = false;
    var last = { code: "", at: 0 };
    var clearTimer = null;
    var banner = root.querySelector("[data-offline]");
    var notes = root.querySelector("[data-offline-notes]");
    var door = null;  // the kept state and queue, where IndexedDB and Ed25519 verification exist

    function keepFocus() {
      if (document.activeElement !== input) input.focus({ preventScroll: true });
    }
    input.addEventListener("blur", function () { window.setTimeout(keepFocus, 150); });
    document.addEventListener("visibilitychange", keepFocus);

    function show(report) {
      result.className = "scan-result result-" + report.result;
      root.querySelectorAll("[data-field]").forEach(function (element) {
        var value = report[element.dataset.field];
        if (value !== undefined && value !== null) element.textContent = String(value);
      });
      window.clearTimeout(clearTimer);
      clearTimer = window.setTimeout(function () {
        result.className = "scan-result";
        result.querySelector("[data-field=headline]").textContent = text("js.ready");
        result.querySelector("[data-field=message]").textContent = text("js.scanPrompt");
      }, 6000);
    }

    function newScanId() {
      var bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      return btoa(String.fromCharCode.apply(null, bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    }

    // A POST of the scan form's fields and `fields` (to `url`, or the form's), given up after `seconds`.
    function post(fields, seconds, url) {
      var body = new URLSearchParams(new FormData(form));
      // Each scan is a new event at the door, not the page's form sent again.
      body.delete("formKey");
      Object.keys(fields).forEach(function (name) { body.set(name, fields[name]); });
      return fetchWithin(url || form.action, { method: "POST", body: body, redirect: "manual" }, seconds);
    }

    function showBanner() {
      if (!door || !banner) return;
      heldOffline = door.queued;
      banner.hidden = !(door.offline || door.queued > 0);
      banner.textContent = fill(door.offline ? "js.offline" : "js.sending", { count: door.queued });
      var lines = [];
      if (door.conflicts) lines.push(fill("js.offlineConflicts", { count: door.conflicts }));
      if (door.refused) lines.push(fill("js.offlineRefused", { count: door.refused }));
      if (door.stopped) lines.push(fill("js.offlineStopped", { count: door.queued }));
      var lease = door.state && door.state.admitsOffline && door.state.lease;
      if (door.offline && lease) lines.push(fill("js.leaseLeft", { count: lease.places }));
      if (clockNote()) lines.push(clockNote());
      notes.hidden = lines.length === 0;
      notes.textContent = lines.join(" ");
    }

    // Decided here: the server did not answer in time.
    function offlineScan(code, scanId, at) {
      door.offline = true;
      return DoorOffline.decide(code, door.state, at.getTime()).then(function (answer) {
        var report = { result: answer.result, peopleInside: door.state.peopleInside };
        if (answer.result === "enter" || answer.result === "exit") {
          DoorOffline.apply(door.state, answer);
          door.spent += 1;
          report.peopleInside = door.state.peopleInside;
          door.queued += 1;
          return DoorOffline.transaction(door.db, "queue", "readwrite", function (queue) {
            queue.add({ code: code, scanId: scanId, scannedAt: at.toISOString(), offlineResult: answer.result });
          }).then(function () {
            return DoorOffline.transaction(door.db, "state", "readwrite", function (kept) { kept.put(door.state, "current"); });
          }).then(function () {
            report.headline = text(answer.result === "enter" ? "js.offlineEnter" : "js.offlineExit");
            report.message = fill(answer.result === "enter" ? "js.offlineWelcome" : "js.offlineGoodbye", answer);
            return report;
          });
        }
        report.headline = text("js.offlineRefused.headline");
        report.message = fill("js.offlineRefusal." + answer.reason, { number: answer.number, door: door.state.admittingDoors });
        return report;
      }).then(function (report) { show(report); showBanner(); });
    }

    function submit(code) {
      code = code.trim();
      var now = Date.now();
      if (!code || busy || (code === last.code && now - last.at < 3000)) return;
      busy = true;
      last = { code: code, at: now };
      var scanId = newScanId();
      var at = new Date(Clock.now());
      // While scans made offline wait to be sent, new ones queue behind them, in order.
      var done = door && door.state && door.queued > 0
        ? offlineScan(code, scanId, at)
        : post({ code: code, scanId: scanId, scannedAt: at.toISOString(), answerWithin: "2.5" }, 2.5)
          .then(function (response) {
            if (response.status >= 500 || response.type === "opaqueredirect") throw new Error("HTTP " + response.status);
            return response.json();
          })
          .then(function (report) {
            if (door) {
              door.offline = false;
              showBanner();
              if (door.state) DoorOffline.learn(door.state, report);
              if (report.result === "enter") door.spent += 1;
            }
            if (!report.result) report = { result: "refused", headline: text("js.noAnswer"), message: report.message || "" };
            show(report);
          })
          .catch(function () {
            if (door && door.state) return offlineScan(code, scanId, at);
            show({ result: "refused", headline: text("js.noAnswer"), message: text("js.scanFailed") });
          });
      done.catch(function () {
        show({ result: "refused", headline: text("js.noAnswer"), message: text("js.scanFailed") });
      }).then(function () { busy = false; input.value = ""; keepFocus(); });
    }

    // The queue, oldest first, one at a time: each scan carries its id, so one sent twice
    // (its answer lost) counts once.
    var flushing = false;
    function flush() {
      if (!door || flushing || door.queued === 0) return;
      flushing = true;
      DoorOffline.transaction(door.db, "queue", "readonly", function (queue) { return queue.getAll(); })
        .then(function sendNext(items) {
          if (!items.length) return;
          var item = items[0];
          return post({ code: item.code, scanId: item.scanId, scannedAt: item.scannedAt, offlineResult: item.offlineResult }, 5)
            .then(function (response) {
              if (response.status >= 500) throw new Error("HTTP " + response.status);
              if (response.status === 403 || response.type === "opaqueredirect") {
                door.stopped = true;  // the kiosk's key was revoked: kept, not sent
                throw new Error("revoked");
              }
              return response.json().then(function (answer) {
                if (answer.result === "conflict") door.conflicts += 1;
                else if (!answer.result) door.refused += 1;  // too old or malformed: said, not applied
                return DoorOffline.transaction(door.db, "queue", "readwrite", function (queue) { queue.delete(item.seq); });
              });
            })
            .then(function () {
              door.queued -= 1;
              door.offline = false;
              showBanner();
              return sendNext(items.slice(1));
            });
        })
        .then(function () { if (door.queued === 0) { refresh(); renew(); } })
        .catch(function () { door.offline = !door.stopped; })
        .then(function () { flushing = false; showBanner(); });
    }

    // What the server says of the store now, kept for when it does not answer.
    function refresh() {
      if (!door || door.queued > 0) return;
      fetchWithin(root.dataset.stateUrl, {}, 5)
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (state) {
          showBanner();  // with what this answer said of the kiosk's clock
          if (door.queued > 0) return;
          state.lease = door.state ? door.state.lease : null;  // renewed apart
          door.state = state;
          return DoorOffline.transaction(door.db, "state", "readwrite", function (kept) { kept.put(state, "current"); });
        })
        .catch(function () {});
    }

    // The lease, renewed while nothing waits to be sent. The answer to a renewal that crossed an
    // entry or exit here is not taken: it may not count it. A smaller grant is acknowledged at
    // once, so CLup stops holding for this door what it no longer may use.
    var renewing = false;
    function renew() {
      if (!door || !door.state || renewing || door.queued > 0 || door.stopped) return;
      renewing = true;
      var spent = door.spent;
      var held = door.state.lease;
      var again = false;
      post({ heldVersion: held ? String(held.version) : "" }, 5, root.dataset.leaseUrl)
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (lease) {
          if (door.queued > 0 || door.spent !== spent || !door.state) return;
          door.state.admitsOffline = lease.admitsOffline;
          door.state.lease = lease.admitsOffline ? { version: lease.version, places: lease.places, expiresAt: lease.expiresAt } : null;
          again = !!held && lease.admitsOffline && lease.version !== held.version && lease.places < held.places;
          return DoorOffline.transaction(door.db, "state", "readwrite", function (kept) { kept.put(door.state, "current"); });
        })
        .catch(function () {})
        .then(function () { renewing = false; showBanner(); if (again) renew(); });
    }

    if (window.indexedDB && window.crypto && window.crypto.subtle && root.dataset.stateUrl) {
      DoorOffline.openStore().then(function (db) {
        door = { db: db, state: null, queued: 0, offline: false, conflicts: 0, refused: 0, stopped: false, spent: 0 };
        return Promise.all([
          DoorOffline.transaction(db, "state", "readonly", function (kept) { return kept.get("current"); }),
          DoorOffline.transaction(db, "queue", "readonly", function (queue) { return queue.count(); })
        ]).then(function (found) {
          door.state = found[0] || null;
          door.queued = found[1] || 0;
          // Scans still waiting, or a kept copy of the page: offline until the server answers.
          door.offline = door.queued > 0 || document.body.hasAttribute("data-offline-copy");
          showBanner();
          refresh();
          renew();
          window.setInterval(refresh, 30000);
          window.setInterval(renew, 5000);
          window.setInterval(flush, 3000);
          flush();
        });
      }).catch(function () { door = null; });
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      submit(input.value);
    });

    var camera = root.querySelector("[data-camera]");
    if (camera && "BarcodeDetector" in window && navigator.mediaDevices) {
      camera.hidden = false;
      var toggle = camera.querySelector("[data-camera-toggle]");
      var video = camera.querySelector("[data-camera-video]");
      var detector = new window.BarcodeDetector({ formats: ["qr_code"] });
      var stream = null;
      function scanFrame() {
        if (!stream) return;
        detector.detect(video)
          .then(function (codes) { if (codes.length) submit(codes[0].rawValue); })
          .catch(function () {})
          .then(function () { window.setTimeout(scanFrame, 250); });
      }
      toggle.addEventListener("click", function () {
        if (stream) {
          stream.getTracks().forEach(function (track) { track.stop(); });
          stream = null;
          video.hidden = true;
          toggle.textContent = text("js.useCamera");
          return;
        }
        navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } })
          .then(function (media) {
            stream = media;
            video.srcObject = media;
            video.hidden = false;
            toggle.textContent = text("js.stopCamera");
            return video.play();
          })
          .then(scanFrame)
          .catch(function () { toggle.textContent = text("js.noCamera"); });
      });
    }
    keepFocus();
  }

  // The dispenser offline. While CLup answers, the page keeps its kiosk's spare tickets for
  // the day in IndexedDB (POST /kiosk/spares: a block of numbers reserved for this kiosk, each
  // ticket's receipt for a party of one and of two, with its code signed by the store). A
  // ticket asked for when CLup does not answer within a short deadline is printed from the
  // next spare, and reported once CLup answers again (POST /kiosk/spares/printed): it then
  // joins the walk-in queue from the time it was printed. The door lets such a ticket in when
  // there is room, whether or not CLup has heard of it yet.
  function setUpDispenser() {
    var form = document.querySelector("form[data-dispenser]");
    if (!form || !window.indexedDB || !window.fetch || !window.FormData || !window.URLSearchParams) return;
    var banner = document.querySelector("[data-offline]");
    var state = { db: null, queued: 0, refused: 0, stopped: false, busy: false };

    function transaction(names, mode, work) { return storeTransaction(state.db, names, mode, work); }
    function post(url, fields, seconds) {
      var body = new URLSearchParams(new FormData(form));
      ["people", "minutes", "requestKey"].forEach(function (name) { body.delete(name); });
      // Only the ticket's own request is the page's form sent: the others are events of their own.
      if (url !== form.action) body.delete("formKey");
      Object.keys(fields).forEach(function (name) { body.set(name, fields[name]); });
      return fetchWithin(url, { method: "POST", body: body, redirect: "manual" }, seconds);
    }
    function showBanner() {
      heldOffline = state.queued;
      if (!banner) return;
      var lines = [];
      if (state.queued > 0) lines.push(fill("js.printedWaiting", { count: state.queued }));
      if (state.refused) lines.push(fill("js.printedRefused", { count: state.refused }));
      if (state.stopped) lines.push(fill("js.printedStopped", { count: state.queued }));
      banner.hidden = lines.length === 0;
      banner.textContent = lines.join(" ");
    }

    // The spare tickets, read again while nothing printed offline waits to be sent.
    function refresh() {
      if (state.queued > 0) return Promise.resolve();
      return post(form.dataset.sparesUrl, {}, 5)
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (block) {
          return transaction(["spares"], "readwrite", function (tx) {
            var spares = tx.objectStore("spares");
            spares.clear();
            block.tickets.forEach(function (ticket) { spares.put(ticket); });
          });
        })
        .catch(function () {});
    }

    // Printed here: the next spare ticket, for the party chosen.
    function printOffline(people, minutes) {
      var printedAt = new Date(Clock.now());
      return transaction(["spares", "printed"], "readwrite", function (tx) {
        var found = {};
        tx.objectStore("spares").openCursor().onsuccess = function (event) {
          var cursor = event.target.result;
          if (!cursor) return;
          found.result = cursor.value;
          cursor.delete();
          tx.objectStore("printed").add({ id: cursor.value.id, people: people, minutes: minutes,
                                          issuedAt: printedAt.toISOString() });
        };
        return found;
      }).then(function (spare) {
        if (!spare) {
          window.alert(text("js.noSpares"));
          return;
        }
        state.queued += 1;
        showBanner();
        // The receipt in place of the dispenser's form, the banner kept above it.
        var section = form.closest("section") || form;
        var receipt = document.createElement("div");
        receipt.innerHTML = spare.receipts[String(people)];
        section.parentNode.insertBefore(receipt, section);
        if (banner) receipt.parentNode.insertBefore(banner, receipt);
        section.remove();
        receipt.querySelectorAll("[data-printed-at]").forEach(function (element) {
          element.textContent = printedAt.toLocaleTimeString(document.documentElement.lang || undefined,
                                                              { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
        });
        setUpRefresh();
        window.setTimeout(function () { window.print(); }, 300);
      });
    }

    form.addEventListener("submit", function (event) {
      if (!state.db) return;  // the form is sent as it is
      event.preventDefault();
      if (state.busy) return;
      state.busy = true;
      var chosen = new FormData(form);
      var people = parseInt(chosen.get("people"), 10) || 1;
      var minutes = parseInt(chosen.get("minutes"), 10) || 30;
      // While tickets printed offline wait to be sent, new ones are printed here too.
      // A request that waits longer than the page does for the answer issues nothing (503 late).
      var asked = state.queued > 0 ? Promise.reject(new Error("offline")) : post(form.action, {
        people: people, minutes: minutes, requestKey: chosen.get("requestKey"), email: chosen.get("email") || "",
        answerWithin: "2.5" }, 2.5);
      asked.then(function (response) {
        if (response.type === "opaqueredirect") {
          // Issued: the ticket's page prints it. Asked again, the same ticket (its request key).
          form.submit();
          return;
        }
        if (response.status >= 500) throw new Error("HTTP " + response.status);
        form.submit();  // refused: the page says why
      }).catch(function () {
        return printOffline(people, minutes);
      }).then(function () { state.busy = false; });
    });

    // What was printed offline, oldest first, one at a time.
    var flushing = false;
    function flush() {
      if (flushing || state.queued === 0 || state.stopped) return;
      flushing = true;
      transaction(["printed"], "readonly", function (tx) { return tx.objectStore("printed").getAll(); })
        .then(function sendNext(items) {
          if (!items.length) return;
          var item = items[0];
          return post(form.dataset.printedUrl, { id: item.id, people: item.people, minutes: item.minutes,
                                                 issuedAt: item.issuedAt }, 5)
            .then(function (response) {
              if (response.status >= 500) throw new Error("HTTP " + response.status);
              if (response.status === 403 || response.type === "opaqueredirect") {
                state.stopped = true;  // the kiosk's key was revoked: kept, not sent
                throw new Error("revoked");
              }
              if (response.status >= 400) state.refused += 1;
              return transaction(["printed"], "readwrite", function (tx) { tx.objectStore("printed").delete(item.seq); });
            })
            .then(function () {
              state.queued -= 1;
              showBanner();
              return sendNext(items.slice(1));
            });
        })
        .then(function () { if (state.queued === 0) refresh(); })
        .catch(function () {})
        .then(function () { flushing = false; showBanner(); });
    }

    openDatabase("clup-dispenser", function (db) {
      db.createObjectStore("spares", { keyPath: "number" });
      db.createObjectStore("printed", { keyPath: "seq", autoIncrement: true });
    }).then(function (db) {
      state.db = db;
      return transaction(["printed"], "readonly", function (tx) { return tx.objectStore("printed").count(); });
    }).then(function (count) {
      state.queued = count || 0;
      showBanner();
      refresh();
      window.setInterval(refresh, 60000);
      window.setInterval(flush, 3000);
      flush();
    }).catch(function () { state.db = null; });
  }

  // The door's scanner and a customer's ticket are kept by the service worker for when CLup
  // cannot be reached (Public/sw.js); a kept copy says so.
  function setUpKeptPages() {
    if (document.body.hasAttribute("data-offline-copy")) {
      var notice = document.createElement("p");
      notice.className = "offline-copy";
      notice.setAttribute("role", "status");
      notice.textContent = text("js.offlineCopy");
      var main = document.querySelector("main") || document.body;
      main.insertBefore(notice, main.firstChild);
    }
    if (!("serviceWorker" in navigator)) return;
    if (document.querySelector("[data-scanner], [data-status-url], [data-dispenser]")) {
      navigator.serviceWorker.register("/sw.js").catch(function () {});
      if (!document.body.hasAttribute("data-offline-copy")) {
        navigator.serviceWorker.ready.then(function (registration) {
          if (registration.active) registration.active.postMessage({ keep: window.location.pathname });
        });
      }
    }
  }

  // The calling board at the entrance: it asks for the numbers every few seconds and changes
  // only what changed, so its live region ("Now calling 14") is announced by screen readers;
  // with sound turned on (a button, since browsers allow sound only after a press, remembered
  // on this screen) a new call chimes and is said aloud in the page's language, and can be
  // said again. The last five calls are listed. Without this script the page reloads itself.
  function setUpBoard() {
    var board = document.querySelector("[data-board]");
    if (!board || !window.fetch) return;
    var SOUND = "clup-board-sound";
    var announce = board.querySelector("[data-board-announce]");
    var calledBox = board.querySelector("[data-board-called]");
    var nextBox = board.querySelector("[data-board-next]");
    var inside = board.querySelector("[data-board-inside]");
    var controls = board.querySelector("[data-board-controls]");
    var soundButton = board.querySelector("[data-board-sound]");
    var repeatButton = board.querySelector("[data-board-repeat]");
    var fullButton = board.querySelector("[data-board-fullscreen]");
    var history = board.querySelector("[data-board-history]");
    var historyList = board.querySelector("[data-board-history-list]");
    var updated = board.querySelector("[data-board-updated]");
    var seconds = parseInt(board.dataset.pollSeconds, 10) || 3;
    // The numbers already on the board when it opened are not news.
    var known = Array.prototype.map.call(board.querySelectorAll(".board-called li"), function (item) {
      return parseInt(item.textContent, 10);
    });
    var sound = false;
    try { sound = window.localStorage.getItem(SOUND) === "on"; } catch (error) { sound = false; }
    var lastCall = null;
    var calls = [];

    controls.hidden = false;
    updated.textContent = text("js.boardLive");
    if (!document.fullscreenEnabled) fullButton.hidden = true;

    function showSound() {
      soundButton.setAttribute("aria-pressed", sound ? "true" : "false");
      soundButton.textContent = text(sound ? "js.boardSoundOff" : "js.boardSoundOn");
    }
    showSound();
    soundButton.addEventListener("click", function () {
      sound = !sound;
      try { window.localStorage.setItem(SOUND, sound ? "on" : "off"); } catch (error) { /* this page only */ }
      showSound();
      if (sound) chime([660]);
    });
    repeatButton.addEventListener("click", function () { if (lastCall) call(lastCall, true); });
    fullButton.addEventListener("click", function () {
      if (document.fullscreenElement) document.exitFullscreen();
      else board.requestFullscreen().catch(function () {});
    });

    function list(numbers, className) {
      var items = document.createElement("ul");
      items.className = className;
      numbers.forEach(function (number) {
        var item = document.createElement("li");
        item.textContent = String(number);
        items.appendChild(item);
      });
      return items;
    }

    function render(state) {
      calledBox.replaceChildren(state.called.length ? list(state.called, "board-called")
        : Object.assign(document.createElement("p"), { className: "board-empty", textContent: text("js.boardNobody") }));
      var nextParts = [];
      if (state.next.length) {
        nextParts.push(Object.assign(document.createElement("h2"), { textContent: text("js.boardNext") }));
        nextParts.push(list(state.next, "board-next"));
      }
      nextBox.replaceChildren.apply(nextBox, nextParts);
      inside.textContent = String(state.peopleInside);
    }

    // Says `numbers` are called: the live region (cleared first, so the same words are
    // announced again), and with sound on a chime and the words aloud.
    function call(numbers, again) {
      var words = fill(numbers.length > 1 ? "js.boardCallingMany" : "js.boardCalling", { numbers: numbers.join(", ") });
      announce.textContent = "";
      window.setTimeout(function () { announce.textContent = words; }, 50);
      lastCall = numbers;
      repeatButton.disabled = false;
      if (!again) {
        var at = new Date(Clock.now()).toLocaleTimeString(document.documentElement.lang || undefined,
                                                           { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
        calls = numbers.map(function (number) { return { number: number, at: at }; }).reverse().concat(calls).slice(0, 5);
        historyList.replaceChildren.apply(historyList, calls.map(function (made) {
          return Object.assign(document.createElement("li"), { textContent: made.number + " · " + made.at });
        }));
        history.hidden = false;
      }
      if (sound) {
        chime([880, 660]);
        window.setTimeout(function () { say(words); }, 900);
      }
    }

    function poll() {
      fetchWithin(window.location.pathname, {}, 5)
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (state) {
          var fresh = state.called.filter(function (number) { return known.indexOf(number) < 0; });
          known = state.called.slice();
          render(state);
          // Oldest call first, as they would be said.
          if (fresh.length) call(fresh.reverse(), false);
        })
        .catch(function () { /* tried again at the next turn */ })
        .then(function () { window.setTimeout(poll, seconds * 1000); });
    }
    window.setTimeout(poll, seconds * 1000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpKeptPages();
    setUpLocate();
    setUpMap();
    setUpPositionPicker();
    setUpLiveTicket();
    setUpPush();
    setUpPrintAndConfirm();
    setUpAutoPrint();
    setUpPrintButtons();
    setUpRefresh();
    setUpLiveTable();
    setUpScanner();
    setUpDispenser();
    setUpBoard();
    setUpKioskAccess();
  });
})();
