// CLup's service worker: shows the push messages the server sends (leave now, your turn,
// booking reminders) and opens the ticket when one is tapped; and keeps three pages for when
// CLup cannot be reached: the door kiosk's scanner (which then decides by itself), the ticket
// dispenser (which then prints from its spare tickets) and a customer's ticket (whose QR code
// still opens the door). A kept copy is shown only when the
// page cannot be had, and says it is one; every other page is live only.
"use strict";

var KEPT = "clup-kept-v1";

function kept(url) {
  return url.pathname === "/kiosk/scanner" || url.pathname === "/kiosk/dispenser" ||
    /^\/reservations\/[0-9]+$/.test(url.pathname);
}

// The page from CLup, kept; or, if CLup does not answer within 4 s (or answers that it is
// down), the kept copy marked as one.
function liveOrKept(request, url) {
  var live = new Promise(function (resolve, reject) {
    var timer = setTimeout(function () { reject(new Error("timeout")); }, 4000);
    fetch(request).then(function (response) {
      clearTimeout(timer);
      if (response.status >= 500) return reject(new Error("HTTP " + response.status));
      if (response.ok && !response.redirected) {
        var copy = response.clone();
        caches.open(KEPT).then(function (cache) { cache.put(url.pathname, copy); });
      }
      resolve(response);
    }, function (error) { clearTimeout(timer); reject(error); });
  });
  return live.catch(function (error) {
    return caches.open(KEPT).then(function (cache) { return cache.match(url.pathname); }).then(function (copy) {
      if (!copy) throw error;
      return copy.text().then(function (html) {
        // With the page's own headers (its content security policy among them).
        return new Response(html.replace("<body", "<body data-offline-copy"), { headers: copy.headers });
      });
    });
  });
}

// A kept page asks to be kept as soon as the worker runs: its first load did not come
// through the worker.
self.addEventListener("message", function (event) {
  var path = event.data && event.data.keep;
  if (typeof path !== "string" || !kept(new URL(path, self.location.origin))) return;
  event.waitUntil(fetch(path, { credentials: "same-origin" }).then(function (response) {
    if (response.ok && !response.redirected) {
      return caches.open(KEPT).then(function (cache) { return cache.put(path, response); });
    }
  }).catch(function () {}));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // Signing out forgets the kept ticket.
  if (request.method === "POST" && /^\/signout/.test(url.pathname)) {
    event.waitUntil(caches.delete(KEPT));
    return;
  }
  if (request.method !== "GET") return;
  if (/^\/assets\//.test(url.pathname)) {
    // Fingerprinted files never change: kept once fetched, for the kept pages.
    event.respondWith(caches.open(KEPT).then(function (cache) {
      return cache.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) {
          if (response.ok) cache.put(request, response.clone());
          return response;
        });
      });
    }));
    return;
  }
  if (request.mode === "navigate" && kept(url)) event.respondWith(liveOrKept(request, url));
});

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (error) { data = { body: event.data.text() }; }
  var title = data.title || "CLup";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || "",
    icon: "/assets/icon-192.png",
    badge: "/assets/icon-192.png",
    tag: data.tag || "clup",
    renotify: data.renotify === true,
    vibrate: [200, 100, 200],
    data: { url: data.url || "/reservations" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = new URL((event.notification.data && event.notification.data.url) || "/reservations", self.location.origin);
  if (url.origin !== self.location.origin) url = new URL("/reservations", self.location.origin);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (new URL(windows[i].url).pathname === url.pathname && "focus" in windows[i]) return windows[i].focus();
    }
    return self.clients.openWindow(url.href);
  }));
});
